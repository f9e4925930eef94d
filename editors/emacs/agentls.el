;;; agentls.el --- A coding agent in a language server, over eglot  -*- lexical-binding: t; -*-

;; Author: agentls contributors
;; Maintainer: agentls contributors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, languages
;; URL: https://example.invalid/agentls
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; agentls runs as a language server (`agentls serve').  This file starts it
;; under eglot and adds what plain eglot lacks:
;;
;; - `agentls-ask' (with the region: about those lines), `agentls-new',
;;   `agentls-cancel', `agentls-transcript', `agentls-set-mode';
;; - the *agentls* buffer, where the run is written as it happens (the
;;   `agentls/event' notifications): the answer, tool calls, approvals, edits
;;   and the end of the run with its usage;
;; - approvals asked in the minibuffer, and every edit reviewed first: the
;;   diff is shown in a `diff-mode' window, then Apply or Reject.
;;
;; Setup:
;;
;;   (require 'agentls)
;;   (agentls-eglot-setup '(python-mode js-mode))   ; the modes to use it in
;;   ;; then M-x eglot in a file of the project
;;
;; The server keeps approvals and reviews waiting (settings approvalsVia and
;; reviewVia set to "codeAction"); this file answers them with
;; `agentls.answer' when the person picks.  They are also offered as code
;; actions (M-x eglot-code-actions).

;;; Code:

(require 'cl-lib)
(require 'diff-mode)
(require 'eglot)
(require 'jsonrpc)
(require 'subr-x)

(defgroup agentls nil
  "A coding agent that lives in a language server."
  :group 'tools
  :prefix "agentls-")

(defcustom agentls-command '("agentls" "serve")
  "The command that starts the language server."
  :type '(repeat string))

(defcustom agentls-settings '()
  "Settings sent to the server as initializationOptions, a plist.
For example (:model \"anthropic:claude-sonnet-4-5\" :maxTurns 30)."
  :type 'plist)

(defcustom agentls-choose-function #'agentls-completing-read
  "How the person picks an answer: called with a prompt and a list of titles.
Returns the title chosen, or nil when the person declined."
  :type 'function)

(defclass agentls-server (eglot-lsp-server) ()
  :documentation "agentls, run by eglot.")

(defvar agentls--session nil "The session `agentls-ask' continues.")
(defvar agentls--server nil "The agentls server asked last.")
(defvar agentls--last-result nil "The `run_finished' event of the last run.")
(defvar agentls--in-text nil "Non-nil while answer text is streaming into the log.")

;;;; Setup

;;;###autoload
(defun agentls-eglot-setup (modes)
  "Make eglot start agentls in buffers of major MODES (a list of symbols)."
  (add-to-list 'eglot-server-programs `(,modes . (agentls-server . ,agentls-command))))

(cl-defmethod eglot-initialization-options ((_server agentls-server))
  "The settings, with questions answered through this file's prompts."
  (let ((options (copy-sequence agentls-settings)))
    (unless (plist-member options :approvalsVia)
      (setq options (plist-put options :approvalsVia "codeAction")))
    (unless (plist-member options :reviewVia)
      (setq options (plist-put options :reviewVia "codeAction")))
    options))

(defun agentls--current-server ()
  "The agentls server of this buffer, or the one asked last."
  (let ((server (ignore-errors (eglot-current-server))))
    (cond ((cl-typep server 'agentls-server) (setq agentls--server server))
          ((and agentls--server (jsonrpc-running-p agentls--server)) agentls--server)
          (t (user-error "agentls: no server here; run M-x eglot in a file of the project")))))

(defun agentls--uri (file)
  (funcall (if (fboundp 'eglot-path-to-uri) #'eglot-path-to-uri #'eglot--path-to-uri)
           (expand-file-name file)))

(defun agentls--path (uri)
  (funcall (if (fboundp 'eglot-uri-to-path) #'eglot-uri-to-path #'eglot--uri-to-path) uri))

(defun agentls--execute (command argument &optional on-result server)
  "Run COMMAND with ARGUMENT (a plist, or nil) on SERVER, without waiting."
  (jsonrpc-async-request
   (or server (agentls--current-server)) :workspace/executeCommand
   (list :command command :arguments (if argument (vector argument) []))
   :success-fn (lambda (result) (when on-result (funcall on-result result)))
   :error-fn (lambda (error)
               (message "agentls: %s: %s" command (plist-get error :message)))))

;;;; The log buffer

(define-derived-mode agentls-log-mode special-mode "agentls"
  "The run of agentls, as it happens.")

(defun agentls--log-buffer ()
  (or (get-buffer "*agentls*")
      (with-current-buffer (get-buffer-create "*agentls*")
        (agentls-log-mode)
        (let ((inhibit-read-only t)) (insert "agentls\n"))
        (current-buffer))))

(defun agentls--insert (text &optional streaming)
  "Append TEXT to the log; STREAMING text continues the current line."
  (with-current-buffer (agentls--log-buffer)
    (let ((inhibit-read-only t))
      (goto-char (point-max))
      (when (and (not streaming) agentls--in-text (not (bolp)))
        (insert "\n"))
      (insert text)
      (unless streaming (insert "\n"))
      (setq agentls--in-text streaming))
    (dolist (window (get-buffer-window-list (current-buffer) nil t))
      (set-window-point window (point-max)))))

;;;###autoload
(defun agentls-show-log ()
  "Show the *agentls* buffer."
  (interactive)
  (display-buffer (agentls--log-buffer)))

(defun agentls--finished-line (event)
  (let ((usage (plist-get event :usage)))
    (format "[%s · %s turns · %s in / %s out tokens%s]"
            (plist-get event :terminalReason) (plist-get event :turns)
            (plist-get usage :inputTokens) (plist-get usage :outputTokens)
            (if (numberp (plist-get usage :costUsd))
                (format " · $%.4f" (plist-get usage :costUsd))
              ""))))

(defun agentls--render (server event)
  (let ((kind (plist-get event :kind)))
    (pcase kind
      ("text" (agentls--insert (plist-get event :text) t))
      ("tool_started" (agentls--insert (concat "→ " (plist-get event :summary))))
      ("tool_finished"
       (let ((line (plist-get event :line)))
         (agentls--insert (concat (if (eq (plist-get event :ok) t) "✓ " "✗ ")
                                  (plist-get event :summary)
                                  (if (and line (not (string-empty-p line)))
                                      (concat " — " line) "")))))
      ("approval_asked" (agentls--insert (concat "? approval: " (plist-get event :summary))))
      ("approval_answered"
       (agentls--insert (concat "  " (pcase (plist-get event :answer)
                                       ("allow_once" "allowed once")
                                       ("allow_always" "always allowed")
                                       ("deny" "denied")
                                       (other other)))))
      ("question"
       (when (equal (plist-get event :question) "review")
         (agentls--insert (concat "? review: " (plist-get event :summary))))
       ;; Ask from the command loop, not from the process filter.
       (run-at-time 0 nil #'agentls--ask-person server event))
      ("edit_proposed" (agentls--insert (concat "✎ " (plist-get event :summary))))
      ("edit_applied" (agentls--insert (concat "✓ applied to " (plist-get event :path))))
      ("edit_rejected"
       (agentls--insert (format "✗ not applied to %s: %s"
                                (plist-get event :path) (plist-get event :reason))))
      ("run_finished"
       (setq agentls--last-result event)
       (agentls--insert (concat "\n" (agentls--finished-line event) "\n"))))))

(cl-defmethod eglot-handle-notification
  ((server agentls-server) (_method (eql agentls/event)) &rest event)
  "Render one `agentls/event'."
  (when (and (null agentls--session) (plist-get event :sessionId))
    (setq agentls--session (plist-get event :sessionId)))
  (agentls--render server event))

;;;; Questions: approvals and reviews

(defun agentls-completing-read (prompt titles)
  "Pick one of TITLES in the minibuffer; nil when the person quits."
  (condition-case nil
      (completing-read prompt titles nil t nil nil (car titles))
    (quit nil)))

(defun agentls--match-answer (typed answers)
  "The answer (a plist) TYPED names: its title, a unique title prefix, or its id."
  (when typed
    (or (cl-find typed answers :key (lambda (a) (plist-get a :title)) :test #'equal)
        (let ((prefixed (cl-remove-if-not
                         (lambda (a) (string-prefix-p typed (plist-get a :title))) answers)))
          (and (= (length prefixed) 1) (car prefixed)))
        (cl-find typed answers :key (lambda (a) (plist-get a :answer)) :test #'equal))))

(defun agentls--show-diff (question)
  "Show QUESTION's diff in a `diff-mode' window; return the window."
  (let ((buffer (get-buffer-create "*agentls diff*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (or (plist-get question :detail) ""))
        (diff-mode)
        (setq buffer-read-only t)
        (goto-char (point-min))))
    (display-buffer buffer '(display-buffer-pop-up-window))))

(defun agentls--ask-person (server question)
  (let* ((answers (append (plist-get question :answers) nil))
         (review (equal (plist-get question :question) "review"))
         (window (and review (agentls--show-diff question)))
         (prompt (if review
                     (format "agentls: %s? " (plist-get question :summary))
                   (format "agentls asks to use %s: " (plist-get question :summary))))
         (typed (unwind-protect
                    (funcall agentls-choose-function prompt
                             (mapcar (lambda (a) (plist-get a :title)) answers))
                  (when (window-live-p window) (quit-window nil window))))
         ;; declined or unknown: the last answer (Deny, Reject)
         (picked (or (agentls--match-answer typed answers) (car (last answers)))))
    (agentls--insert (concat "  → " (plist-get picked :title)))
    (agentls--execute "agentls.answer"
                      (list :id (plist-get question :id) :answer (plist-get picked :answer))
                      nil server)))

;;;; What the person does

(defun agentls--region-range ()
  (when (use-region-p)
    (list :start (list :line (1- (line-number-at-pos (region-beginning))) :character 0)
          :end (list :line (1- (line-number-at-pos (region-end))) :character 0))))

;;;###autoload
(defun agentls-ask (prompt &optional new-session)
  "Ask agentls PROMPT about this file (and the region, if active).
The session goes on from the last ask, unless NEW-SESSION (a prefix argument)."
  (interactive
   (list (read-string (if (use-region-p) "Ask agentls about the region: " "Ask agentls: "))
         current-prefix-arg))
  (let ((argument (list :prompt prompt)))
    (when (and agentls--session (not new-session))
      (setq argument (plist-put argument :sessionId agentls--session)))
    (when buffer-file-name
      (setq argument (plist-put argument :uri (agentls--uri buffer-file-name)))
      (when-let ((range (agentls--region-range)))
        (setq argument (plist-put argument :range range))))
    (agentls--current-server)
    (agentls-show-log)
    (agentls--insert (concat "\n» " prompt))
    (setq agentls--last-result nil)
    (agentls--execute "agentls.ask" argument
                      (lambda (result) (setq agentls--session (plist-get result :sessionId))))))

;;;###autoload
(defun agentls-new (prompt)
  "Ask agentls PROMPT in a new session."
  (interactive (list (read-string "Ask agentls (new session): ")))
  (agentls-ask prompt t))

;;;###autoload
(defun agentls-cancel ()
  "Cancel the session's run."
  (interactive)
  (agentls--execute "agentls.cancel" (and agentls--session (list :sessionId agentls--session))
                    (lambda (result)
                      (message "agentls: %s" (if (eq (plist-get result :cancelled) t)
                                                 "cancelled" "nothing to cancel")))))

;;;###autoload
(defun agentls-transcript ()
  "Open the session's transcript."
  (interactive)
  (agentls--execute "agentls.showTranscript"
                    (and agentls--session (list :sessionId agentls--session))
                    (lambda (result)
                      (unless (eq (plist-get result :shown) t)
                        (find-file-other-window (agentls--path (plist-get result :uri)))))))

;;;###autoload
(defun agentls-set-mode (mode)
  "Set the session's MODE: default, accept-edits, plan or bypass."
  (interactive (list (completing-read "agentls mode: "
                                      '("default" "accept-edits" "plan" "bypass") nil t)))
  (agentls--execute "agentls.setMode"
                    (if agentls--session (list :mode mode :sessionId agentls--session)
                      (list :mode mode))))

(provide 'agentls)
;;; agentls.el ends here
