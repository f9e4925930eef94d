;;; lsp-mode-agentls.el --- agentls as an lsp-mode add-on server  -*- lexical-binding: t; -*-

;; lsp-mode runs agentls next to the language's own server (:add-on? t).
;; Approvals and edit reviews use lsp-mode's prompt (completing-read) through
;; the standard window/showMessageRequest: lsp-mode applies edits at once, so
;; agentls reviews each one first (Apply / Show diff / Reject).  The run is
;; echoed from the agentls/event notifications into *agentls*.
;;
;;   (with-eval-after-load 'lsp-mode (load "/path/to/lsp-mode-agentls.el"))

;;; Code:

(require 'lsp-mode)

(defcustom lsp-agentls-settings '(:model "anthropic:claude-sonnet-4-5" :reviewVia "prompt")
  "Settings for agentls, sent as initializationOptions (a plist)."
  :type 'plist
  :group 'lsp-mode)

(defun lsp-agentls--event (_workspace event)
  "Append one agentls/event (a hash table) to *agentls*."
  (with-current-buffer (get-buffer-create "*agentls*")
    (goto-char (point-max))
    (pcase (gethash "kind" event)
      ("text" (insert (gethash "text" event)))
      ((or "tool_started" "approval_asked" "edit_proposed")
       (insert "\n" (gethash "kind" event) ": " (gethash "summary" event) "\n"))
      ("run_finished"
       (insert (format "\n[%s · %s turns]\n"
                       (gethash "terminalReason" event) (gethash "turns" event)))))))

(lsp-register-client
 (make-lsp-client
  :new-connection (lsp-stdio-connection '("agentls" "serve"))
  :activation-fn (lambda (&rest _) t)
  :add-on? t
  :server-id 'agentls
  :initialization-options (lambda () lsp-agentls-settings)
  :notification-handlers (ht ("agentls/event" #'lsp-agentls--event))))

(defun lsp-agentls-ask (prompt)
  "Ask agentls PROMPT about this file."
  (interactive "sAsk agentls: ")
  (lsp-workspace-command-execute
   "agentls.ask" (vector (list :prompt prompt :uri (lsp--buffer-uri))))
  (display-buffer (get-buffer-create "*agentls*")))

(defun lsp-agentls-cancel ()
  "Cancel every agentls run."
  (interactive)
  (lsp-workspace-command-execute "agentls.cancel"))

(defun lsp-agentls-transcript ()
  "Open the latest session's transcript.
The server opens it with window/showDocument where lsp-mode has it; else here."
  (interactive)
  (let ((result (lsp-workspace-command-execute "agentls.showTranscript")))
    (when (and result (not (eq (lsp-get result :shown) t)))
      (find-file-other-window (lsp--uri-to-path (lsp-get result :uri))))))

(provide 'lsp-mode-agentls)
;;; lsp-mode-agentls.el ends here
