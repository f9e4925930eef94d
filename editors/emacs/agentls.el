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
;;   `agentls-cancel', `agentls-transcript', `agentls-undo' (undo last ask),
;;   `agentls-rewind' and `agentls-fork' (the ask picked from a list; a
;;   rewind names what it will undo and asks first), `agentls-set-mode';
;; - prompt commands: an ask that starts with /name (TAB completes it) asks with
;;   that command file; `agentls-run-command' picks one, `agentls-commands'
;;   lists them;
;; - the *agentls* buffer, where the run is written as it happens (the
;;   `agentls/event' notifications): the answer, tool calls, approvals, edits
;;   and the end of the run with its usage;
;; - what the run is doing now (thinking, running a command, waiting for
;;   you), with the seconds it has taken, in the mode line and on the last
;;   line of *agentls* (`agentls-status' for a mode line of your own);
;; - approvals asked in the minibuffer, and every edit reviewed first: the
;;   diff is shown in a `diff-mode' window, then apply or reject (one
;;   question per edit: eglot's own "Proceed?" is not asked for agentls);
;; - an accepted edit is saved at once, so the commands that follow see it
;;   (a buffer that held unsaved changes of your own is left unsaved).
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
(require 'flymake)
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
  "How the person picks an answer: called with a prompt and a list of choices.
The choices are short distinct words (\"once\", \"always\", \"deny\",
\"apply\", \"reject\"), also named in the prompt.  Returns the choice,
or nil when the person quit (the question then waits as a code action)."
  :type 'function)

;; eglot's names for "ask before applying a server's edit" (1.9, then 1.16+).
(defvar eglot-confirm-server-initiated-edits)
(defvar eglot-confirm-server-edits)

(defclass agentls-server (eglot-lsp-server) ()
  :documentation "agentls, run by eglot.")

(defvar agentls--session nil "The session `agentls-ask' continues.")
(defvar agentls--server nil "The agentls server asked last.")
(defvar agentls--last-result nil "The `run_finished' event of the last run.")
(defvar agentls--last-rewind nil "What the last `agentls-rewind' did (agentls.rewind's answer).")
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

(cl-defmethod eglot-client-capabilities :around ((_server agentls-server))
  "Say that this file saves accepted edits and opens documents."
  (let* ((capabilities (copy-sequence (cl-call-next-method)))
         (window (copy-sequence (plist-get capabilities :window))))
    (setq window (plist-put window :showDocument '(:support t)))
    (setq capabilities (plist-put capabilities :window window))
    (plist-put capabilities :experimental
               '(:agentls (:savesEdits t :intelligence ["problems"] :languageServers t)))))

(cl-defmethod eglot-handle-request
  ((_server agentls-server) (_method (eql window/showDocument)) &key uri &allow-other-keys)
  "Open URI (a diff, a transcript) in another window."
  (find-file-other-window (agentls--path uri))
  (list :success t))

(defun agentls--edited-files (edit)
  "The files a WorkspaceEdit EDIT changes."
  (let (files)
    (mapc (lambda (change)
            (when-let ((document (plist-get change :textDocument)))
              (push (agentls--path (plist-get document :uri)) files)))
          (plist-get edit :documentChanges))
    (cl-loop for (uri _edits) on (plist-get edit :changes) by #'cddr
             do (push (agentls--path (substring (symbol-name uri) 1)) files))
    (delete-dups files)))

(cl-defmethod eglot-handle-request :around
  ((_server agentls-server) (_method (eql workspace/applyEdit)) &key edit &allow-other-keys)
  "Apply an agentls edit without eglot's own question, then save it.
The edit was reviewed already (or the mode accepts edits).  Buffers that had
no unsaved changes of the person's own are saved before the answer goes back,
so the next tool the agent runs sees the file on disk."
  (let* ((files (agentls--edited-files edit))
         (clean (cl-remove-if (lambda (file)
                                (let ((buffer (find-buffer-visiting file)))
                                  (and buffer (buffer-modified-p buffer))))
                              files))
         (eglot-confirm-server-initiated-edits nil)
         (eglot-confirm-server-edits nil))
    (mapc #'find-file-noselect files) ; eglot 1.9 asks about files not visited
    (prog1 (cl-call-next-method)
      (dolist (file clean)
        (when-let ((buffer (find-buffer-visiting file)))
          (with-current-buffer buffer
            (when (buffer-modified-p)
              (make-directory (file-name-directory file) t)
              (let ((inhibit-message t)) (save-buffer)))))))))

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
  (agentls--request (or server (agentls--current-server)) command
                    (if argument (vector argument) []) on-result))

(defun agentls--request (server command arguments &optional on-result)
  "Run COMMAND with ARGUMENTS (a vector) on SERVER, without waiting; errors said."
  (jsonrpc-async-request
   server :workspace/executeCommand (list :command command :arguments arguments)
   :success-fn (lambda (result) (when on-result (funcall on-result result)))
   :error-fn (lambda (error)
               (let ((text (agentls--with-restart-hint
                            (string-remove-prefix "agentls: " (plist-get error :message)))))
                 (when (equal command "agentls.ask")
                   (agentls--set-doing nil))
                 (when (get-buffer "*agentls*")
                   (agentls--insert (concat "✗ " text)))
                 (message "agentls: %s" text)))))

(cl-defmethod eglot-execute-command ((server agentls-server) command arguments)
  "Run COMMAND (a code action's) with ARGUMENTS without waiting for its answer.
In Emacs 28's jsonrpc, the answer to a request that waits ends the reading
of what came with it: the run's end, sent just after a cancel's answer, was
lost."
  (agentls--request server (format "%s" command) (or arguments [])))

(defun agentls--with-restart-hint (text)
  "TEXT, with the command that restarts the server where it says to."
  (replace-regexp-in-string "restart the server" "restart the server (M-x eglot-reconnect)"
                            text t t))

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
  "Append TEXT to the log; STREAMING text continues the current line.
The status line stays last."
  (with-current-buffer (agentls--log-buffer)
    (let ((inhibit-read-only t))
      (agentls--erase-status-line)
      (goto-char (point-max))
      (when (and (not streaming) agentls--in-text (not (bolp)))
        (insert "\n"))
      (insert text)
      (unless streaming (insert "\n"))
      (setq agentls--in-text streaming)
      (agentls--draw-status-line))
    (agentls--scroll-log)))

(defun agentls--scroll-log ()
  (dolist (window (get-buffer-window-list (current-buffer) nil t))
    (set-window-point window (point-max))))

;;;; What the run is doing: the mode line and the log's last line

(defvar agentls--doing nil
  "What the run is doing now, (WHAT . SINCE), or nil when no run goes on.
WHAT is \"starting\", \"thinking\", \"running read_file a.py\",
\"waiting for you: ...\";
SINCE is the `float-time' it began.")
(defvar agentls--tool nil "The summary of the tool that runs now, or nil.")
(defvar agentls--status-timer nil "Redraws the status each second while a run goes on.")
(defvar agentls--status-start nil "Where the log's status line starts, while it shows one.")

(defun agentls-status ()
  "What agentls is doing: \"agentls: running run_command: make (12 s)\".
The empty string when no run goes on."
  (if (null agentls--doing)
      ""
    (format "agentls: %s (%d s)" (car agentls--doing)
            (floor (- (float-time) (cdr agentls--doing))))))

(defvar agentls--mode-line '(:eval (agentls--mode-line-text))
  "The mode line's part: what the run is doing, while one goes on.")
(put 'agentls--mode-line 'risky-local-variable t)

(defun agentls--mode-line-text ()
  (if agentls--doing
      (concat " [" (truncate-string-to-width (agentls-status) 60 nil nil "…") "] ")
    ""))

(defun agentls--set-doing (what)
  "Say the run now does WHAT (a string), or that no run goes on (nil)."
  (unless (equal what (car agentls--doing))
    (setq agentls--doing (and what (cons what (float-time)))))
  (when (and what (not (memq 'agentls--mode-line global-mode-string)))
    (setq global-mode-string
          (append (if (listp global-mode-string) global-mode-string (list global-mode-string))
                  '(agentls--mode-line))))
  (cond ((and what (not agentls--status-timer))
         (setq agentls--status-timer (run-at-time 1 1 #'agentls--tick)))
        ((and (not what) agentls--status-timer)
         (cancel-timer agentls--status-timer)
         (setq agentls--status-timer nil)))
  (agentls--redraw-status))

(defun agentls--back-to-work ()
  "After a question: the tool it was about runs on, or the model thinks."
  (agentls--set-doing (if agentls--tool (concat "running " agentls--tool) "thinking")))

(defun agentls--tick ()
  "Each second of a run: the seconds go up.
A server that died ends the run's status."
  (if (and agentls--server (not (jsonrpc-running-p agentls--server)))
      (progn (agentls--set-doing nil)
             (agentls--insert "✗ the server stopped (M-x eglot to start it again)"))
    (agentls--redraw-status)))

(defun agentls--redraw-status ()
  (when-let ((buffer (get-buffer "*agentls*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (save-excursion
          (agentls--erase-status-line)
          (agentls--draw-status-line)))
      (agentls--scroll-log)))
  (force-mode-line-update t))

(defun agentls--erase-status-line ()
  (when (and agentls--status-start
             (eq (marker-buffer agentls--status-start) (current-buffer)))
    (delete-region agentls--status-start (point-max))
    (set-marker agentls--status-start nil)
    (setq agentls--status-start nil)))

(defun agentls--draw-status-line ()
  (setq agentls--status-start nil) ; one of a killed log buffer is gone with it
  (when agentls--doing
    (goto-char (point-max))
    (setq agentls--status-start (copy-marker (point)))
    (unless (bolp) (insert "\n")) ; after answer text still streaming
    (insert (propertize (concat "… " (string-remove-prefix "agentls: " (agentls-status)))
                        'face 'shadow))))

;;;###autoload
(defun agentls-show-log ()
  "Show the *agentls* buffer."
  (interactive)
  (display-buffer (agentls--log-buffer)))

(defun agentls--grouped (number)
  "NUMBER with thousands separated by commas, as the CLI writes it."
  (let ((digits (number-to-string (or number 0))))
    (while (string-match "\\([0-9]\\)\\([0-9]\\{3\\}\\)\\($\\|,\\)" digits)
      (setq digits (replace-match "\\1,\\2\\3" t nil digits)))
    digits))

(defun agentls--plural (count word)
  (format "%d %s%s" (or count 0) word (if (eql count 1) "" "s")))

(defun agentls--finished-line (event)
  (let* ((usage (plist-get event :usage))
         (cost (plist-get usage :costUsd))
         (reason (plist-get event :terminalReason))
         (detail (plist-get event :detail)))
    (concat "["
            (mapconcat #'identity
                       (append (list reason
                                     (agentls--plural (plist-get event :turns) "turn")
                                     (format "%s in / %s out tokens"
                                             (agentls--grouped (plist-get usage :inputTokens))
                                             (agentls--grouped (plist-get usage :outputTokens))))
                               ;; none for a free or unknown price (a scripted model)
                               (and (numberp cost) (> cost 0) (list (format "$%.4f" cost))))
                       " · ")
            "]"
            (if (and (stringp detail) (not (string-empty-p detail))
                     (not (equal reason "completed")))
                (concat " " detail) ""))))

(defun agentls--tool-line (event)
  "✓ or ✗, the call, its exit code when not 0, its first line, how many more."
  (let* ((exit (plist-get event :exitCode))
         (failed (or (not (eq (plist-get event :ok) t)) (and (numberp exit) (/= exit 0))))
         (line (plist-get event :line))
         (more (plist-get event :moreLines)))
    (concat (if failed "✗ " "✓ ")
            (plist-get event :summary)
            (if (and (numberp exit) (/= exit 0)) (format " (exit code %d)" exit) "")
            (if (and (stringp line) (not (string-empty-p line))) (concat " — " line) "")
            (if (and (numberp more) (> more 0))
                (format " (+%s)" (agentls--plural more "more line")) ""))))

(defun agentls--hook-line (event)
  "What a settings hook told (EVENT), on one line as the CLI prints it.
! marks an error (the run goes on), i a message the hook asked to show."
  (concat (if (eq (plist-get event :error) t) "! " "i ")
          (string-replace "\n" "\\n"
                          (format "%s hook `%s`: %s" (plist-get event :event)
                                  (plist-get event :command) (plist-get event :text)))))

(defun agentls--plan-lines (event)
  "The model's checklist in EVENT, a line per step, as the CLI prints it."
  (let* ((steps (append (plist-get event :plan) nil))
         (done (cl-count-if (lambda (s) (equal (plist-get s :status) "completed")) steps))
         (why (plist-get event :explanation)))
    (mapconcat
     #'identity
     (cons (format "☰ plan (%d/%d done)%s" done (length steps)
                   (if (and (stringp why) (not (string-empty-p why)))
                       (concat ": " (replace-regexp-in-string "\n" " " why)) ""))
           (mapcar (lambda (s)
                     (concat "  " (pcase (plist-get s :status)
                                    ("completed" "[x]") ("in_progress" "[>]") (_ "[ ]"))
                             " " (plist-get s :step)))
                   steps))
     "\n")))

(defun agentls--process-line (event)
  "One log line for a background process EVENT: started, exited or stopped."
  (let ((action (plist-get event :action)))
    (format "⚙ background %s %s: %s"
            (plist-get event :id)
            (pcase action
              ("exited" (format "exited (exit code %s)" (plist-get event :exitCode)))
              ("stopped" (format "stopped (%s)" (or (plist-get event :by) "stopped")))
              (_ action))
            (plist-get event :command))))

(defun agentls--render (server event)
  (let ((kind (plist-get event :kind))
        (summary (plist-get event :summary)))
    (pcase kind
      ("plan" (agentls--insert (agentls--plan-lines event)))
      ("plan_proposed"
       (agentls--set-doing "waiting for you: the proposed plan")
       (agentls--insert (concat "⚑ proposed plan:\n"
                                (replace-regexp-in-string
                                 "^" "  " (or (plist-get event :plan) "")))))
      ("mode_changed"
       (agentls--insert (format "  mode: %s (the run goes on in it)" (plist-get event :mode))))
      ("steered"
       (agentls--insert (concat "» (while it worked) "
                                (replace-regexp-in-string "\n" " " (plist-get event :text)))))
      ("text" (agentls--set-doing "thinking") (agentls--insert (plist-get event :text) t))
      ("tool_started"
       (setq agentls--tool summary)
       (agentls--set-doing (concat "running " summary))
       (agentls--insert (concat "→ " summary)))
      ("tool_finished"
       (setq agentls--tool nil)
       (agentls--set-doing "thinking")
       (agentls--insert (agentls--tool-line event))
       (mapc (lambda (note) (agentls--insert (concat "  note: " note)))
             (plist-get event :notes)))
      ("approval_asked"
       (agentls--set-doing (concat "waiting for you: " summary))
       (agentls--insert (concat "? approval: " summary)))
      ("approval_answered"
       (agentls--back-to-work)
       (agentls--insert (concat "  " (pcase (plist-get event :answer)
                                       ("allow_once" "allowed once")
                                       ("allow_always" "always allowed")
                                       ("deny" "denied")
                                       (other other)))))
      ("question"
       (agentls--set-doing (concat "waiting for you: "
                                   (if (equal (plist-get event :question) "review") "review " "")
                                   summary))
       (when (equal (plist-get event :question) "review")
         (agentls--insert (concat "? review: " summary)))
       ;; Ask from the command loop, not from the process filter.
       (run-at-time 0 nil #'agentls--ask-person server event))
      ("question_closed" (agentls--back-to-work))
      ("waiting_for_save"
       (agentls--set-doing (concat "waiting for you to save "
                                   (string-join (append (plist-get event :paths) nil) ", "))))
      ("edit_proposed" (agentls--insert (concat "✎ " summary)))
      ("edit_applied" (agentls--insert (concat "✓ applied to " (plist-get event :path))))
      ("edit_rejected"
       (agentls--insert (format "✗ not applied to %s: %s"
                                (plist-get event :path) (plist-get event :reason))))
      ("hook" (agentls--insert (agentls--hook-line event)))
      ;; A background process: also between runs (it may exit after its run).
      ("process" (agentls--insert (agentls--process-line event)))
      ("run_finished"
       (setq agentls--last-result event agentls--tool nil)
       (agentls--set-doing nil)
       (agentls--insert (concat "\n" (agentls--finished-line event) "\n"))))))

(cl-defmethod eglot-handle-notification
  ((server agentls-server) (_method (eql agentls/event)) &rest event)
  "Render one `agentls/event'."
  (when (and (null agentls--session) (plist-get event :sessionId))
    (setq agentls--session (plist-get event :sessionId)))
  (agentls--render server event))

;;;; Problems as this Emacs sees them (agentls/problems)

;; The server asks for the problems of files; they come from flymake, i.e. the
;; person's own checkers, never from agentls's own diagnostics (eglot's backend
;; here).  A buffer's verdict is fresh ("settled") when every checker reported
;; after the buffer's last change; the server asks again until then.  A file no
;; buffer visits is not checked here: the server checks it itself.

(defvar-local agentls--flymake-tick nil
  "`buffer-chars-modified-tick' when flymake last started checking this buffer.")

(defun agentls--note-flymake-start (&rest _)
  (setq agentls--flymake-tick (buffer-chars-modified-tick)))

(advice-add 'flymake-start :after #'agentls--note-flymake-start)

(defun agentls--own-backend-p (backend)
  (eq backend 'eglot-flymake-backend))

(defun agentls--position (point)
  "POINT as an LSP position (0-based line, characters into the line)."
  (save-excursion
    (goto-char point)
    (list :line (1- (line-number-at-pos)) :character (- (point) (line-beginning-position)))))

(defun agentls--severity (type)
  (pcase (or (get type 'flymake-category) type)
    ((or 'flymake-error :error) 1)
    ((or 'flymake-warning :warning) 2)
    (_ 3)))

(defun agentls--file-problems (uri)
  "What flymake says about the file of URI, as the server wants it."
  (let ((buffer (find-buffer-visiting (agentls--path uri))))
    (if (not (and buffer (buffer-local-value 'flymake-mode buffer)))
        (list :uri uri :diagnostics [] :settled t :checked :json-false)
      (with-current-buffer buffer
        (let* ((backends (cl-remove-if #'agentls--own-backend-p (flymake-running-backends)))
               (reported (flymake-reporting-backends))
               (found (cl-loop
                       for d in (flymake-diagnostics)
                       unless (agentls--own-backend-p (flymake-diagnostic-backend d))
                       collect (list :range (list :start (agentls--position (flymake-diagnostic-beg d))
                                                  :end (agentls--position (flymake-diagnostic-end d)))
                                     :severity (agentls--severity (flymake-diagnostic-type d))
                                     :message (flymake-diagnostic-text d)
                                     :source (format "%s" (flymake-diagnostic-backend d))))))
          (list :uri uri
                :diagnostics (vconcat found)
                :settled (if (and (if agentls--flymake-tick
                                      (eql agentls--flymake-tick (buffer-chars-modified-tick))
                                    (not (buffer-modified-p)))
                                  (cl-every (lambda (b) (memq b reported)) backends))
                             t :json-false)
                :checked (if (or backends found) t :json-false)))))))

(cl-defmethod eglot-handle-request
  ((_server agentls-server) (_method (eql agentls/problems)) &key uris &allow-other-keys)
  "Answer with the problems flymake shows in the files of URIS.
Without URIS, those of every visited file flymake checks."
  (let ((uris (if (vectorp uris)
                  (append uris nil)
                (cl-loop for buffer in (buffer-list)
                         when (and (buffer-file-name buffer)
                                   (buffer-local-value 'flymake-mode buffer))
                         collect (agentls--uri (buffer-file-name buffer))))))
    (vconcat (mapcar #'agentls--file-problems uris))))

(defvar agentls-language-servers nil
  "The last `agentls/languageServers' notification.
It names the language servers agentls runs itself.")

(cl-defmethod eglot-handle-notification
  ((_server agentls-server) (_method (eql agentls/languageServers)) &rest status)
  "Keep STATUS for `agentls-language-status'."
  (setq agentls-language-servers status))

(defun agentls-language-status ()
  "\"agentls: basedpyright, ruff\", or \"\" when agentls runs no language server."
  (let ((names (mapcar (lambda (server)
                         (if (equal (plist-get server :state) "running")
                             (plist-get server :name)
                           (format "%s (%s)" (plist-get server :name) (plist-get server :state))))
                       (plist-get agentls-language-servers :servers))))
    (if names (concat "agentls: " (string-join names ", ")) "")))

;;;; Questions: approvals and reviews

(defun agentls-completing-read (prompt choices)
  "Pick one of CHOICES (named in PROMPT); nil when the person quits."
  (condition-case nil
      (completing-read prompt choices nil t nil nil (car choices))
    (quit nil)))

(defconst agentls--words
  '(("allow_once" . "once") ("allow_always" . "always") ("deny" . "deny")
    ("apply" . "apply") ("reject" . "reject")
    ("default" . "default") ("accept-edits" . "accept-edits") ("keep-planning" . "keep"))
  "The word typed for each answer: in one question, no two share a first letter.")

(defun agentls--word (answer)
  "The word the person types for ANSWER (a plist with :answer and :title)."
  (let ((id (plist-get answer :answer)))
    (or (cdr (assoc id agentls--words)) id)))

(defun agentls--match-answer (typed answers)
  "The answer (a plist) TYPED names: its word, its title, or its id."
  (when typed
    (cl-find-if (lambda (a) (member typed (list (agentls--word a) (plist-get a :title)
                                                (plist-get a :answer))))
                answers)))

(defun agentls--choices-text (answers)
  "\"once, always (adds run_command(x)) or deny\": what each word does."
  (let ((words (mapcar (lambda (a)
                         (let ((title (plist-get a :title)) (word (agentls--word a)))
                           (if (and (equal (plist-get a :answer) "allow_always")
                                    (string-match ": \\(.+\\)" title))
                               (format "%s (adds %s)" word (match-string 1 title))
                             word)))
                       answers)))
    (if (cdr words)
        (concat (mapconcat #'identity (butlast words) ", ") " or " (car (last words)))
      (car words))))

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
         (approval (equal (plist-get question :question) "approval"))
         (window (and review (agentls--show-diff question)))
         (prompt (format (if approval "agentls asks to use %s — %s? " "agentls: %s? %s: ")
                         (plist-get question :summary) (agentls--choices-text answers)))
         (typed (unwind-protect
                    (funcall agentls-choose-function prompt (mapcar #'agentls--word answers))
                  (when (window-live-p window) (quit-window nil window))))
         (picked (agentls--match-answer typed answers)))
    (if (null picked)
        ;; quit: the question waits, as a code action and a note in the file
        (progn
          (agentls--set-doing (concat (car agentls--doing) " (M-x eglot-code-actions)"))
          (agentls--insert "  … left waiting: answer it with M-x eglot-code-actions"))
      (agentls--insert (concat "  → " (plist-get picked :title)))
      (agentls--execute "agentls.answer"
                        (list :id (plist-get question :id) :answer (plist-get picked :answer))
                        nil server))))

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
   (list (agentls--read-prompt
          (if (use-region-p) "Ask agentls about the region: " "Ask agentls: "))
         current-prefix-arg))
  (when (string-empty-p (string-trim prompt))
    (user-error "agentls: nothing to ask"))
  (let ((argument (list :prompt prompt)))
    (when (and agentls--session (not new-session))
      (setq argument (plist-put argument :sessionId agentls--session)))
    (when buffer-file-name
      (setq argument (plist-put argument :uri (agentls--uri buffer-file-name)))
      (when-let ((range (agentls--region-range)))
        (setq argument (plist-put argument :range range))))
    (agentls--current-server)
    (agentls-show-log)
    (setq agentls--last-result nil agentls--tool nil)
    (agentls--insert (concat "\n» " prompt))
    (agentls--set-doing "starting")
    (agentls--execute "agentls.ask" argument
                      (lambda (result)
                        (setq agentls--session (plist-get result :sessionId))
                        (when (equal (car agentls--doing) "starting") ; the run has begun
                          (agentls--set-doing "thinking"))))))

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
(defun agentls-undo ()
  "Undo last ask: put back everything the session's last ask changed."
  (interactive)
  (unless agentls--session (user-error "agentls: no session to undo in"))
  (agentls--execute "agentls.undo" (list :sessionId agentls--session)
                    (lambda (result)
                      (let ((conflicts (append (plist-get result :conflicts) nil)))
                        (agentls--insert
                         (concat "\n↶ undo last ask: "
                                 (if conflicts
                                     (format "nothing undone: %s changed since"
                                             (string-join conflicts ", "))
                                   (format "%d file(s) put back"
                                           (+ (length (plist-get result :restored))
                                              (length (plist-get result :removed)))))))))))

;;;; Rewind and fork: asks are numbered from 1, as `agentls show' prints them

(defun agentls--asks (server)
  "The session's asks on SERVER (`agentls.asks'), oldest first."
  (append (jsonrpc-request server :workspace/executeCommand
                           (list :command "agentls.asks"
                                 :arguments (vector (list :sessionId agentls--session))))
          nil))

(defun agentls--pick-ask (prompt entries &optional first)
  "The ask picked from ENTRIES (agentls.asks's) by its label, after PROMPT.
FIRST, a (LABEL . VALUE) pair, is offered before them.  nil: the person quit."
  (let* ((labels (mapcar (lambda (entry)
                           (cons (format "%d: %s" (plist-get entry :ask)
                                         (car (split-string (plist-get entry :prompt) "
")))
                                 (plist-get entry :ask)))
                         entries))
         (labels (if first (cons first labels) labels))
         (picked (funcall agentls-choose-function prompt (mapcar #'car labels))))
    (and picked (assoc picked labels))))

(defconst agentls--rewind-halves
  '(("rewind" :conversation t :files t)
    ("conversation" :conversation t :files :json-false)
    ("files" :conversation :json-false :files t))
  "What each answer to a rewind's question takes back.")

;;;###autoload
(defun agentls-rewind (ask &optional how)
  "Rewind the session to before ASK (its number, as `agentls show' prints it).
That ask and every later one leave the conversation, and the files they
changed go back (those changed since are kept and named).  HOW is one
of rewind (both halves), conversation or files.  Interactively, the ask
is picked from the session's asks, and what the rewind will undo is
named before it asks."
  (interactive
   (let* ((server (agentls--current-server))
          (_ (unless agentls--session (user-error "agentls: no session to rewind")))
          (live (cl-remove-if (lambda (entry) (eq (plist-get entry :rewound) t))
                              (agentls--asks server)))
          (_ (unless live (user-error "agentls: no ask to rewind to")))
          (picked (or (agentls--pick-ask "Rewind to before ask: " live)
                      (user-error "agentls: nothing rewound")))
          (preview (jsonrpc-request
                    server :workspace/executeCommand
                    (list :command "agentls.rewind"
                          :arguments (vector (list :sessionId agentls--session
                                                   :ask (cdr picked) :dryRun t))))))
     (list (cdr picked)
           (or (funcall agentls-choose-function
                        (format "agentls: %s.  Rewind (both), conversation or files? "
                                (plist-get preview :summary))
                        (mapcar #'car agentls--rewind-halves))
               (user-error "agentls: nothing rewound")))))
  (unless agentls--session (user-error "agentls: no session to rewind"))
  (let ((half (cdr (assoc (or how "rewind") agentls--rewind-halves))))
    (agentls--execute "agentls.rewind"
                      (append (list :sessionId agentls--session :ask ask) half)
                      (lambda (result)
                        (setq agentls--last-rewind result)
                        (agentls--insert (concat "
↶ " (plist-get result :summary)))))))

;;;###autoload
(defun agentls-fork (ask)
  "Fork the session: a new one whose history ends before ASK (nil: all of it).
`agentls-ask' then goes on in the fork; no file changes.  Interactively, the
ask is picked from the session's asks."
  (interactive
   (let ((server (agentls--current-server)))
     (unless agentls--session (user-error "agentls: no session to fork"))
     (list (cdr (or (agentls--pick-ask "Fork before ask: " (agentls--asks server)
                                       '("whole session"))
                    (user-error "agentls: nothing forked"))))))
  (unless agentls--session (user-error "agentls: no session to fork"))
  (let ((from agentls--session))
    (agentls--execute "agentls.fork"
                      (if ask (list :sessionId from :ask ask) (list :sessionId from))
                      (lambda (result)
                        (setq agentls--session (plist-get result :sessionId))
                        (agentls--insert
                         (format "
⑂ forked %s (%s): this is now %s" from
                                 (if ask (format "before ask %d" ask) "whole")
                                 agentls--session))))))

(defun agentls-set-mode (mode)
  "Set the session's MODE: default, accept-edits, plan or bypass."
  (interactive (list (completing-read "agentls mode: "
                                      '("default" "accept-edits" "plan" "bypass") nil t)))
  (agentls--execute "agentls.setMode"
                    (if agentls--session (list :mode mode :sessionId agentls--session)
                      (list :mode mode))))

;;;###autoload
(defun agentls-memory ()
  "Show what agentls remembers here (the person's and this project's memories)."
  (interactive)
  (agentls--execute "agentls.memory" (agentls--memory-where)
                    (lambda (result) (agentls--show-memories result "memory"))))

;;;###autoload
(defun agentls-forget-memory (id)
  "Forget the memory ID (picked from those that apply here)."
  (interactive
   (list (let ((server (agentls--current-server)))
           (completing-read
            "Forget agentls memory: "
            (mapcar (lambda (m) (plist-get m :id))
                    (plist-get (jsonrpc-request
                                server :workspace/executeCommand
                                (list :command "agentls.memory"
                                      :arguments (vector (agentls--memory-where))))
                               :memories))
            nil t))))
  (agentls--execute "agentls.memory"
                    (append (list :action "forget" :id id) (agentls--memory-where))
                    (lambda (result)
                      (agentls--show-memories result (format "forgot %s; memory" id)))))

(defun agentls--memory-where ()
  "The current file's folder, for the memory of its project."
  (if buffer-file-name (list :uri (concat "file://" (expand-file-name buffer-file-name))) nil))

(defun agentls--show-memories (result title)
  "Insert RESULT's memories under TITLE in *agentls*, one line each, and show it."
  (let ((lines (mapcar (lambda (m) (concat "  " (plist-get m :line)))
                       (append (plist-get result :memories) nil)))
        (warnings (mapcar (lambda (w) (concat "  " w)) (append (plist-get result :warnings) nil))))
    (agentls--insert (concat "\n🧠 " title ":\n"
                             (string-join (append warnings (or lines '("  no memories"))) "\n")))
    (agentls-show-log)))

;;;; Prompt commands

(defvar-local agentls--asked-from nil
  "The server and the file's folder an ask's minibuffer completes /name for.")

(defun agentls--commands (&optional server where)
  "The prompt commands of WHERE (a :uri plist; nil: the first folder), from SERVER."
  (append (plist-get (jsonrpc-request (or server (agentls--current-server))
                                      :workspace/executeCommand
                                      (list :command "agentls.commands"
                                            :arguments (vector (or where (make-hash-table)))))
                     :commands)
          nil))

(defun agentls--command-table (&optional server where)
  "A completion table of \"/name\" for the prompt commands, each described.
The server is asked once, when the table is first used."
  (let ((commands 'unread))
    (cl-flet ((read-them ()
                (when (eq commands 'unread)
                  (setq commands
                        (mapcar (lambda (c) (cons (concat "/" (plist-get c :name)) c))
                                (ignore-errors (agentls--commands server where)))))
                commands))
      (lambda (string predicate action)
        (if (eq action 'metadata)
            `(metadata
              (annotation-function
               . ,(lambda (name)
                    (when-let ((command (cdr (assoc name (read-them)))))
                      (concat " " (or (plist-get command :argumentHint) "")
                              " — " (plist-get command :description))))))
          (complete-with-action action (read-them) string predicate))))))

(defun agentls-command-completion-at-point ()
  "Complete a prompt command's /name at the start of an ask's text."
  (let ((start (if (minibufferp) (minibuffer-prompt-end) (line-beginning-position))))
    (when (and (eq (char-after start) ?/)
               (not (save-excursion (re-search-backward "[ \t\n]" start t))))
      (list start (point)
            (agentls--command-table (car agentls--asked-from) (cdr agentls--asked-from))
            :exclusive 'no))))

(defvar agentls-ask-minibuffer-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "TAB") #'completion-at-point)
    map)
  "Keys while typing an ask: TAB completes a prompt command's /name.")

(defun agentls--read-prompt (prompt)
  "Read an ask with PROMPT; TAB completes a /name at its start."
  (let ((from (cons (ignore-errors (agentls--current-server)) (agentls--memory-where))))
    (minibuffer-with-setup-hook
        (lambda ()
          (setq agentls--asked-from from)
          (add-hook 'completion-at-point-functions
                    #'agentls-command-completion-at-point nil t)
          (use-local-map (make-composed-keymap agentls-ask-minibuffer-map
                                               (current-local-map))))
      (read-string prompt))))

;;;###autoload
(defun agentls-run-command (name arguments)
  "Ask agentls with the prompt command NAME and its ARGUMENTS (the text after it)."
  (interactive
   (let* ((table (agentls--command-table nil (agentls--memory-where)))
          (name (completing-read "agentls command: " table nil t "/")))
     (list (string-remove-prefix "/" name)
           (read-string (format "%s " name)))))
  (agentls-ask (string-trim-right (concat "/" name " " arguments))))

;;;###autoload
(defun agentls-commands ()
  "List the prompt commands agentls offers here in *agentls*, with skipped files."
  (interactive)
  (agentls--execute
   "agentls.commands" (agentls--memory-where)
   (lambda (result)
     (let ((lines (mapcar (lambda (c)
                            (format "  /%s%s — %s (%s)" (plist-get c :name)
                                    (if (plist-get c :argumentHint)
                                        (concat " " (plist-get c :argumentHint)) "")
                                    (plist-get c :description) (plist-get c :path)))
                          (append (plist-get result :commands) nil)))
           (problems (mapcar (lambda (p) (concat "  ✗ " p))
                             (append (plist-get result :problems) nil))))
       (agentls--insert
        (concat "\n⌘ commands (M-x agentls-run-command, or /name in an ask):\n"
                (string-join (or (append lines problems)
                                 '("  none: add .agentls/commands/NAME.md"))
                             "\n")))))))

;;;###autoload
(defun agentls-processes ()
  "Show the background processes agentls runs for the open sessions, in *agentls*."
  (interactive)
  (agentls--execute "agentls.processes" nil
                    (lambda (result) (agentls--show-processes result "background processes"))))

;;;###autoload
(defun agentls-stop-process (id)
  "Stop the background process ID (picked from those running)."
  (interactive
   (list (let ((server (agentls--current-server)))
           (completing-read
            "Stop agentls background process: "
            (delq nil (mapcar (lambda (p) (and (equal (plist-get p :state) "running")
                                               (plist-get p :id)))
                              (plist-get (jsonrpc-request
                                          server :workspace/executeCommand
                                          (list :command "agentls.processes"
                                                :arguments (vector (make-hash-table))))
                                         :processes)))
            nil t))))
  (agentls--execute "agentls.processes"
                    (append (list :stop id) (and agentls--session (list :sessionId agentls--session)))
                    (lambda (result)
                      (agentls--show-processes
                       result (format "stopped %s; background processes" id)))))

(defun agentls--show-processes (result title)
  "Insert RESULT's background processes under TITLE in *agentls*, one line each."
  (let ((lines (mapcar (lambda (p)
                         (format "  %s (%s): %s" (plist-get p :id)
                                 (if (equal (plist-get p :state) "running") "running"
                                   (format "%s, exit code %s" (plist-get p :state)
                                           (plist-get p :exitCode)))
                                 (plist-get p :command)))
                       (append (plist-get result :processes) nil))))
    (agentls--insert (concat "\n⚙ " title ":\n"
                             (if lines (string-join lines "\n") "  none")))))

;; M-x agentls-doctor is in agentls-doctor.el; loaded with this file from
;; `load-path' (not as a package, whose autoloads name it), it is found here.
(autoload 'agentls-doctor "agentls-doctor"
  "Show what blocks or weakens the next ask, in *agentls doctor*." t)

(provide 'agentls)
;;; agentls.el ends here
