;;; emacs_problems_person.el --- a person whose flymake already checks greet.py  -*- lexical-binding: t; -*-

;; Open greet.py with a flymake checker of the person's own (it flags "name"),
;; M-x eglot, ask agentls what is wrong; then report what agentls.el answered.
;; What it saw goes to $AGENTLS_TEST_REPORT as JSON.

(require 'json)
(require 'flymake)
(require 'agentls)

(defvar person-report (list :errors []))

(defun person-note (key value)
  (setq person-report (plist-put person-report key value)))

(defun person-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun person-linter (report-fn &rest _)
  "The person's own checker: every \"name\" on line 2 is an error."
  (let (found)
    (save-excursion
      (goto-char (point-min))
      (forward-line 1)
      (while (search-forward "name" (line-end-position) t)
        (push (flymake-make-diagnostic (current-buffer) (match-beginning 0) (match-end 0)
                                       :error "name is never defined here")
              found)))
    (funcall report-fn found)))

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
        (with-current-buffer source
          (add-hook 'flymake-diagnostic-functions #'person-linter nil t)
          (flymake-mode 1)
          (flymake-start))
        (agentls-ask "what is wrong in greet.py?")
        (person-note :asked (if (person-wait (lambda () agentls--last-result) 60) t :json-false))
        (person-note :result agentls--last-result)
        (person-note :status (agentls-language-status))))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
