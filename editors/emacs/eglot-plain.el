;;; eglot-plain.el --- agentls with eglot alone, no agentls.el  -*- lexical-binding: t; -*-

;; The standard path: approvals and edit reviews come as
;; window/showMessageRequest, which eglot asks with completing-read; eglot
;; 1.9 cannot open documents, so the review prompt carries the diff.  Use
;; agentls.el instead for the log buffer and a diff window.

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((python-mode) . ("agentls" "serve" :initializationOptions
                                  (:model "anthropic:claude-sonnet-4-5")))))

(defun agentls-plain-ask (prompt)
  "Ask agentls PROMPT about this file."
  (interactive "sAsk agentls: ")
  (eglot-execute-command (eglot--current-server-or-lose) "agentls.ask"
                         (vector (list :prompt prompt
                                       :uri (eglot--path-to-uri buffer-file-name)))))

(defun agentls-plain-cancel ()
  "Cancel every agentls run."
  (interactive)
  (eglot-execute-command (eglot--current-server-or-lose) "agentls.cancel" []))
