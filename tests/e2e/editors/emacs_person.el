;;; emacs_person.el --- plays the person in Emacs (batch), through eglot and agentls.el  -*- lexical-binding: t; -*-

;; Open greet.py, M-x eglot, M-x agentls-ask; the answers are typed on stdin,
;; as a person types them in the minibuffer (allow the command, apply the
;; edit, and yes to eglot's own "Proceed?"); save; read the answer in
;; *agentls*.  What it saw goes to $AGENTLS_TEST_REPORT as JSON.

(require 'json)
(require 'agentls)

(defvar person-report (list :prompts [] :errors []))

(defun person-note (key value)
  (setq person-report (plist-put person-report key value)))

(defun person-visible-diff ()
  (let ((buffer (get-buffer "*agentls diff*")))
    (and buffer (get-buffer-window buffer t)
         (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max))))))

(defun person-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

;; Note each question and whether the diff was on screen, then let the real
;; minibuffer prompt read the person's answer.
(let ((choose agentls-choose-function))
  (setq agentls-choose-function
        (lambda (prompt titles)
          (person-note :prompts (vconcat (plist-get person-report :prompts)
                                         (vector (list :prompt prompt
                                                       :choices (vconcat titles)
                                                       :diff (person-visible-diff)))))
          (funcall choose prompt titles))))

(condition-case err
    (progn
      (setq agentls-command (append (json-read-from-string (getenv "AGENTLS_TEST_SERVER")) nil))
      (setq agentls-settings '(:model "anthropic:claude-sonnet-4-5"))
      (agentls-eglot-setup '(python-mode))
      (find-file "greet.py")
      (let ((source (current-buffer)))
        (call-interactively #'eglot)
        (person-note :connected (if (person-wait (lambda () (with-current-buffer source
                                                              (eglot-current-server)))
                                                 30)
                                    t :json-false))
        (agentls-ask "add a shout() function to greet.py and make sure it runs")
        (person-note :asked (if (person-wait (lambda () agentls--last-result) 60) t :json-false))
        (person-note :result agentls--last-result)
        (with-current-buffer source
          (person-note :buffer (buffer-substring-no-properties (point-min) (point-max)))
          (person-note :modifiedBeforeSave (if (buffer-modified-p) t :json-false))
          (save-buffer))
        (person-note :log (with-current-buffer "*agentls*"
                            (buffer-substring-no-properties (point-min) (point-max))))
        (person-note :version emacs-version)
        (person-note :eglot (locate-library "eglot"))))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
