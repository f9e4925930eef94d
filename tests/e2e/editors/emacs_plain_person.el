;;; emacs_plain_person.el --- plays the person in Emacs with eglot alone (editors/emacs/eglot-plain.el)  -*- lexical-binding: t; -*-

;; The standard path, no agentls.el: eglot's own prompts for
;; window/showMessageRequest (the approval, then the review, its diff in a
;; window) and for the edit.  Answers are typed on stdin.  Asked (in the echo
;; area) to save the file holding the accepted edit, the person saves it.
;; With AGENTLS_TEST_QUIT, the person types C-g at agentls's questions.
;; Each prompt, and the diff on screen with it, goes in a JSON report.

(require 'json)
(load (expand-file-name "eglot-plain.el" (getenv "AGENTLS_EL_DIR")))
(require 'eglot)

(defvar person-report (list :errors [] :prompts []))

(defun person-note (key value)
  (setq person-report (plist-put person-report key value)))

(defun person-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun person-running-p (server)
  (cl-some (lambda (session) (eq (plist-get session :running) t))
           (append (jsonrpc-request server :workspace/executeCommand
                                    '(:command "agentls.sessions"))
                   nil)))

(defun person-heard (format &rest args)
  (when (string-match-p "save it to go on" (apply #'format format args))
    (person-note :asked-to-save t)
    (run-at-time 0 nil (lambda ()
                         (with-current-buffer (find-buffer-visiting "greet.py")
                           (save-buffer))))))

(advice-add 'eglot--message :after #'person-heard)

(defvar person-quits (getenv "AGENTLS_TEST_QUIT") "C-g at agentls's questions.")

(defun person-prompted (read prompt &rest args)
  "Note PROMPT and the diff on screen; answer from stdin, or C-g."
  (let ((diff (get-buffer "*agentls diff*")))
    (person-note :prompts
                 (vconcat (plist-get person-report :prompts)
                          (vector (list :prompt prompt
                                        :diff (and diff (get-buffer-window diff t)
                                                   (with-current-buffer diff (buffer-string))))))))
  (if (and person-quits (string-match-p "agentls wants to" prompt))
      (signal 'quit nil) ; C-g, as in the minibuffer
    (apply read prompt args)))

(advice-add 'completing-read :around #'person-prompted)

(condition-case err
    (progn
      (find-file "greet.py")
      (let ((source (current-buffer)) server)
        (call-interactively #'eglot)
        (person-wait (lambda () (setq server (eglot-current-server))) 30)
        (agentls-plain-ask "add a shout() function to greet.py and make sure it runs")
        (person-note :finished
                     (if (person-wait (lambda () (not (person-running-p server))) 60)
                         t :json-false))
        (with-current-buffer source
          (person-note :buffer (buffer-substring-no-properties (point-min) (point-max)))
          (person-note :modtimeOk (if (verify-visited-file-modtime source) t :json-false))
          (save-buffer))
        (person-note :transcript
                     (plist-get (jsonrpc-request server :workspace/executeCommand
                                                 '(:command "agentls.showTranscript"))
                                :uri))))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
