;;; emacs_memory_person.el --- plays the person with agentls.el's memory commands  -*- lexical-binding: t; -*-

;; Open greet.py, M-x eglot, M-x agentls-memory (read the list in *agentls*),
;; then M-x agentls-forget-memory, typing the id on stdin as a person types it
;; in the minibuffer (the ids are offered for completion), and read the list
;; again.  What it saw goes to $AGENTLS_TEST_REPORT as JSON.

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
  (let ((buffer (get-buffer "*agentls*")))
    (if buffer (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max)))
      "")))

(defun person-bool (value) (if value t :json-false))

(condition-case err
    (progn
      (setq agentls-command (append (json-read-from-string (getenv "AGENTLS_TEST_SERVER")) nil))
      (agentls-eglot-setup '(python-mode))
      (find-file "greet.py")
      (let ((source (current-buffer)))
        (call-interactively #'eglot)
        (person-note :connected (person-bool (person-wait (lambda () (with-current-buffer source
                                                                         (eglot-current-server)))
                                                           30)))
        (call-interactively #'agentls-memory)
        (person-note :listed (person-bool (person-wait (lambda () (string-match-p "🧠 memory:"
                                                                                 (person-log)))
                                                        60)))
        (person-note :list (person-log))
        (person-note :shown (person-bool (get-buffer-window "*agentls*" t)))
        (with-current-buffer source
          (call-interactively #'agentls-forget-memory))
        (person-note :forgot (person-bool (person-wait (lambda () (string-match-p "🧠 forgot "
                                                                                 (person-log)))
                                                        60)))
        (person-note :log (person-log))))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
