;;; agentls-agent-shell.el --- agentls as an agent-shell agent (ACP)  -*- lexical-binding: t; -*-

;;; Commentary:
;; Adds `agentls-agent-shell', which starts agentls (`agentls acp') in an
;; agent-shell buffer.  Needs the agent-shell package (and its acp dependency).
;; agentls reads ANTHROPIC_API_KEY from Emacs's environment.

;;; Code:

(require 'agent-shell)

(defvar agentls-agent-shell-command '("agentls" "acp")
  "The command that starts agentls as an ACP agent, and its arguments.
Add \"--model\" \"openai:NAME\" for an OpenAI-compatible server.")

(defun agentls-agent-shell-config ()
  "The agent-shell configuration for agentls."
  (agent-shell-make-agent-config
   :identifier 'agentls
   :mode-line-name "agentls"
   :buffer-name "agentls"
   :shell-prompt "agentls> "
   :shell-prompt-regexp "agentls> "
   :client-maker (lambda (buffer)
                   (agent-shell--make-acp-client
                    :command (car agentls-agent-shell-command)
                    :command-params (cdr agentls-agent-shell-command)
                    :environment-variables (agent-shell-make-environment-variables
                                            :inherit-env t)
                    :context-buffer buffer))
   :install-instructions "pip install agentls, then set ANTHROPIC_API_KEY."))

;;;###autoload
(defun agentls-agent-shell ()
  "Start agentls in an agent-shell buffer."
  (interactive)
  (agent-shell-start :config (agentls-agent-shell-config)))

(provide 'agentls-agent-shell)
;;; agentls-agent-shell.el ends here
