;;; eglot-plain.el --- agentls with eglot alone, no agentls.el  -*- lexical-binding: t; -*-

;; The standard path: approvals and edit reviews come as
;; window/showMessageRequest, which eglot asks with completing-read.  eglot
;; 1.9 cannot open documents, so the review's message carries the diff: it is
;; shown in a diff-mode window here, and the prompt keeps the line that names
;; the file.  C-g at agentls's question answers no (Deny, or Reject) at once.
;; Use agentls.el instead for the log buffer and what the run is doing.

(require 'cl-lib)
(require 'subr-x)

(defvar agentls-plain-settings nil
  "agentls settings sent as initializationOptions, a plist; read at each (re)connect.
For example (:model \"scripted:demo\").  nil leaves every setting to the
settings files (~/.config/agentls/settings.json).")

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((python-mode) . ("agentls" "serve" :initializationOptions
                                  (lambda (_server) agentls-plain-settings))))

  (cl-defmethod eglot-handle-request :around
    (server (method (eql window/showMessageRequest)) &rest params &key message &allow-other-keys)
    "agentls's question: its diff in a window, and C-g answers no at once."
    (if (not (string-prefix-p "agentls wants to " message))
        (cl-call-next-method)
      (let* ((cut (and (string-match-p "Apply it\\?" message)
                       (string-match "\n\n---" message)))
             (window (and cut (agentls-plain--show-diff (substring message (+ cut 2)))))
             (shown (if cut
                        (concat (substring message 0 cut) "\n(the diff is in *agentls diff*)")
                      message)))
        (unwind-protect
            (condition-case nil
                (apply #'cl-call-next-method server method (plist-put (copy-sequence params)
                                                                      :message shown))
              (quit
               (message "agentls: C-g answered no: %s"
                        (if cut "Reject (the edit is not made)" "Deny (the call does not run)"))
               nil)) ; null: no choice, which agentls takes as no
          (when (window-live-p window) (quit-window nil window)))))))

(defun agentls-plain--show-diff (diff)
  "Show DIFF in a diff-mode window; return the window."
  (let ((buffer (get-buffer-create "*agentls diff*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert diff)
        (diff-mode)
        (setq buffer-read-only t)
        (goto-char (point-min))))
    (display-buffer buffer '(display-buffer-pop-up-window))))

(defun agentls-plain-ask (prompt)
  "Ask agentls PROMPT about this file."
  (interactive "sAsk agentls: ")
  (condition-case failed
      (eglot-execute-command (eglot--current-server-or-lose) "agentls.ask"
                             (vector (list :prompt prompt
                                           :uri (eglot--path-to-uri buffer-file-name))))
    (jsonrpc-error
     (let ((text (or (alist-get 'jsonrpc-error-message (cdr failed)) (format "%S" failed))))
       (message "%s" (replace-regexp-in-string
                      "restart the server" "restart the server (M-x eglot-reconnect)" text t t))))))

(defun agentls-plain-cancel ()
  "Cancel every agentls run."
  (interactive)
  (eglot-execute-command (eglot--current-server-or-lose) "agentls.cancel" []))
