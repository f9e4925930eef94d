;;; emacs_commands_person.el --- plays the person: prompt commands in agentls.el  -*- lexical-binding: t; -*-

;; Open greet.py, M-x eglot; complete "/re" as TAB does in an ask's minibuffer, then
;; M-x agentls-run-command (the name and its arguments typed on stdin), then
;; M-x agentls-commands.  What it saw goes to $AGENTLS_TEST_REPORT as JSON.

(require 'json)
(require 'agentls)

(defvar person-report (list :errors []))

(defun person-note (key value)
  (setq person-report (plist-put person-report key value)))

(defun person-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun person-log ()
  (with-current-buffer "*agentls*" (buffer-substring-no-properties (point-min) (point-max))))

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
        ;; what TAB offers for "/re" at the start of an ask
        (let* ((from (cons (agentls--current-server) (agentls--memory-where)))
               (capf (with-temp-buffer  ; as the ask's minibuffer is set up
                       (setq agentls--asked-from from)
                       (insert "/re")
                       (agentls-command-completion-at-point)))
               (table (nth 2 capf))
               (annotate (completion-metadata-get (completion-metadata "" table nil)
                                                  'annotation-function)))
          (person-note :completed (vconcat (all-completions "/re" table)))
          (person-note :annotation (funcall annotate "/review")))
        (person-note :notFirstWord (if (with-temp-buffer
                                         (insert "why /re")
                                         (agentls-command-completion-at-point))
                                       t :json-false))
        (call-interactively #'agentls-run-command)
        (person-note :asked (if (person-wait (lambda () agentls--last-result) 60) t :json-false))
        (person-note :result agentls--last-result)
        (agentls-commands)
        (person-note :listed (if (person-wait (lambda () (string-match-p "⌘ commands"
                                                                          (person-log)))
                                              30)
                                 t :json-false))
        (person-note :log (person-log))))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
