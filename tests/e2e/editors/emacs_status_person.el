;;; emacs_status_person.el --- is it working? what a person sees in Emacs while a run goes on  -*- lexical-binding: t; -*-

;; agentls.el with a scripted model ($AGENTLS_TEST_MODEL).  AGENTLS_TEST_FLOW:
;;
;; "working": the model pauses, asks to run a command that waits for the
;; file `release', then pauses again.  The person looks at the mode line and
;; the last line of *agentls* while the model thinks, when asked (answered
;; "once" on stdin), while the command runs (and its seconds go up), and once
;; the run is over; then makes `release' so the command ends.
;;
;; "cancel": while the model thinks, the person picks "agentls: Cancel the
;; run" from M-x eglot-code-actions (typed on stdin); then opens the
;; transcript (which takes the focus) and runs M-x agentls-doctor from there.
;;
;; What was seen goes to $AGENTLS_TEST_REPORT as JSON.

(require 'cl-lib)
(require 'json)
(require 'agentls)

(defvar person-report (list :errors []))
(defvar person-source nil "The buffer of greet.py.")

(defun person-note (key value)
  (setq person-report (plist-put person-report key value)))

(defun person-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun person-mode-line-part (part)
  "PART of the mode line as it shows (`format-mode-line' shows nothing in batch)."
  (cond ((null part) "")
        ((stringp part) part)
        ((and (symbolp part) (boundp part)) (person-mode-line-part (symbol-value part)))
        ((eq (car-safe part) :eval) (person-mode-line-part (eval (cadr part) t)))
        ((consp part) (mapconcat #'person-mode-line-part part ""))
        (t "")))

(defun person-mode-line ()
  "What `global-mode-string' (shown by every buffer's mode line) says."
  (with-current-buffer person-source
    (substring-no-properties (person-mode-line-part global-mode-string))))

(defun person-log-line ()
  "The last line of *agentls* that holds something."
  (with-current-buffer "*agentls*"
    (save-excursion
      (goto-char (point-max))
      (skip-chars-backward "\n")
      (buffer-substring-no-properties (line-beginning-position) (point)))))

(defun person-log ()
  (with-current-buffer "*agentls*" (buffer-substring-no-properties (point-min) (point-max))))

(defun person-look (key)
  "Note what the mode line and the log show now, under KEY."
  (person-note key (list :modeLine (person-mode-line) :logLine (person-log-line))))

(defun person-seconds ()
  "The seconds the status line of *agentls* shows, or -1."
  (if (string-match "(\\([0-9]+\\) s)\\'" (person-log-line))
      (string-to-number (match-string 1 (person-log-line)))
    -1))

(defvar person-echoed nil "What the echo area said, newest first.")
(advice-add 'message :after (lambda (format &rest args)
                              (when format (push (apply #'format-message format args) person-echoed))))

(let ((choose agentls-choose-function))
  (setq agentls-choose-function
        (lambda (prompt choices)
          (person-look :asked)
          (funcall choose prompt choices))))

(defun person-working ()
  (agentls-ask "run the slow command")
  (person-wait (lambda () (string-match-p "agentls: thinking" (person-mode-line))) 10)
  (person-look :thinking)
  ;; approved (see agentls-choose-function); the command waits for `release'
  (person-wait (lambda () (and (string-match-p "running run_command" (person-log-line))
                               (>= (person-seconds) 2)))
               30)
  (person-look :running)
  (write-region "" nil "release")
  (person-wait (lambda () (and (string-match-p "✓ run_command" (person-log))
                               (string-match-p "thinking" (person-log-line))))
               30)
  (person-look :thinkingAgain)
  (person-note :finished (if (person-wait (lambda () agentls--last-result) 30) t :json-false))
  (person-look :after)
  (person-note :log (person-log)))

(defun person-cancel ()
  (agentls-ask "think for a long time")
  (person-wait (lambda () (string-match-p "agentls: thinking" (person-mode-line))) 10)
  (with-current-buffer person-source
    (goto-char (point-min))
    (let ((last-nonmenu-event ?\C-m)) ; typed, as a person does: no popup menu
      (call-interactively #'eglot-code-actions)))
  (person-note :finished (if (person-wait (lambda () agentls--last-result) 30) t :json-false))
  (person-note :result agentls--last-result)
  (person-note :log (person-log))
  (person-look :after)
  (agentls-transcript)
  (person-wait (lambda () (string-suffix-p ".md" (or (buffer-file-name (window-buffer)) ""))) 10)
  ;; the next command runs in the buffer that has the focus, as the command loop does
  (with-current-buffer (window-buffer)
    (person-note :focus buffer-file-name)
    (agentls-doctor))
  (person-wait (lambda () (cl-some (lambda (said) (string-prefix-p "agentls doctor: " said))
                                   person-echoed))
               60)
  (person-note :doctor (with-current-buffer "*agentls doctor*"
                         (buffer-substring-no-properties (point-min) (point-max)))))

(condition-case err
    (progn
      (setq agentls-command (append (json-read-from-string (getenv "AGENTLS_TEST_SERVER")) nil))
      (setq agentls-settings (list :model (getenv "AGENTLS_TEST_MODEL")))
      (agentls-eglot-setup '(python-mode))
      (find-file "greet.py")
      (setq person-source (current-buffer))
      (call-interactively #'eglot)
      (person-wait (lambda () (with-current-buffer person-source (eglot-current-server))) 30)
      (if (equal (getenv "AGENTLS_TEST_FLOW") "cancel")
          (person-cancel)
        (person-working)))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
