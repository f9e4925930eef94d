;;; emacs_rewind_person.el --- a person rewinds and forks a session in Emacs (batch)  -*- lexical-binding: t; -*-

;; With agentls.el and the fake Anthropic server (bypass mode: no approvals):
;; two asks, then M-x agentls-rewind (the ask picked from the list, the rewind
;; confirmed), an ask after it, then M-x agentls-fork before ask 2 and an ask in
;; the fork.  The picks are typed on stdin, as a person types them in the
;; minibuffer.  What was seen goes to $AGENTLS_TEST_REPORT (JSON).

(require 'json)
(require 'cl-lib)

(defvar person-report (list :prompts [] :errors [] :results []))

(defun person-note (key value)
  (setq person-report (plist-put person-report key value)))

(defun person-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun person-ask (prompt)
  (setq agentls--last-result nil)
  (agentls-ask prompt)
  (person-note :results
               (vconcat (plist-get person-report :results)
                        (vector (if (person-wait (lambda () agentls--last-result) 60)
                                    (plist-get agentls--last-result :terminalReason)
                                  "timeout")))))

(condition-case err
    (progn
      (require 'agentls)
      (setq agentls-command (append (json-read-from-string (getenv "AGENTLS_TEST_SERVER")) nil))
      (setq agentls-settings '(:model "anthropic:claude-sonnet-4-5" :mode "bypass"))
      (agentls-eglot-setup '(python-mode))
      (let ((choose agentls-choose-function))
        (setq agentls-choose-function
              (lambda (prompt choices)
                (person-note :prompts (vconcat (plist-get person-report :prompts)
                                               (vector (list :prompt prompt
                                                             :choices (vconcat choices)))))
                (funcall choose prompt choices))))
      (find-file "a.py")
      (let ((source (current-buffer)))
        (call-interactively #'eglot)
        (person-wait (lambda () (with-current-buffer source (eglot-current-server))) 30)
        (person-ask "first: set A to 2")
        (person-ask "second: make made.txt")
        (person-note :session agentls--session)
        (person-note :madeBefore (if (file-exists-p "made.txt") t :json-false))
        (call-interactively #'agentls-rewind)
        (person-note :rewound (if (person-wait (lambda () agentls--last-rewind) 60) t :json-false))
        (person-note :rewind agentls--last-rewind)
        (person-note :madeAfter (if (file-exists-p "made.txt") t :json-false))
        (person-ask "fourth")
        (let ((before agentls--session))
          (call-interactively #'agentls-fork)
          (person-wait (lambda () (not (equal agentls--session before))) 60))
        (person-note :fork agentls--session)
        (person-ask "forked")
        (person-note :log (with-current-buffer "*agentls*"
                            (buffer-substring-no-properties (point-min) (point-max))))))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
