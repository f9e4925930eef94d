;;; emacs_plan_person.el --- plays the person in Emacs (batch), in plan mode  -*- lexical-binding: t; -*-

;; M-x eglot, M-x agentls-ask in plan mode; the answer to the proposed plan is typed on
;; stdin (default); read the plan and the answer in *agentls*.  What it saw goes to
;; $AGENTLS_TEST_REPORT as JSON.

(require 'json)
(require 'agentls)

(defvar person-report (list :prompts [] :errors []))

(defun person-note (key value)
  (setq person-report (plist-put person-report key value)))

(defun person-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(let ((choose agentls-choose-function))
  (setq agentls-choose-function
        (lambda (prompt titles)
          (person-note :prompts (vconcat (plist-get person-report :prompts)
                                         (vector (list :prompt prompt :choices (vconcat titles)))))
          (funcall choose prompt titles))))

(condition-case err
    (progn
      (setq agentls-command (append (json-read-from-string (getenv "AGENTLS_TEST_SERVER")) nil))
      (setq agentls-settings '(:model "anthropic:claude-sonnet-4-5" :mode "plan"))
      (agentls-eglot-setup '(python-mode))
      (find-file "greet.py")
      (let ((source (current-buffer)))
        (call-interactively #'eglot)
        (person-note :connected (if (person-wait (lambda () (with-current-buffer source
                                                              (eglot-current-server)))
                                                 30)
                                    t :json-false))
        (agentls-ask "plan a shout() function for greet.py")
        (person-note :asked (if (person-wait (lambda () agentls--last-result) 60) t :json-false))
        (person-note :result agentls--last-result)
        (person-note :log (with-current-buffer "*agentls*"
                            (buffer-substring-no-properties (point-min) (point-max))))))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
