;;; agentls-doctor.el --- What blocks or weakens the next agentls ask  -*- lexical-binding: t; -*-

;; This file is part of the agentls package; see agentls.el for its headers.
;; SPDX-License-Identifier: MIT

;;; Commentary:

;; M-x agentls-doctor runs `agentls doctor' (the program of
;; `agentls-command') for the current project and shows its report: the
;; server's version, the model and whether its key is set (never the key),
;; ripgrep, the sandbox, the settings files and whether the workspace's is
;; approved, MCP and language servers, and the editor integrations found.

;;; Code:

(require 'agentls)
(require 'project)
(require 'seq)

(defun agentls-doctor--command (root)
  "The doctor command line for ROOT, from `agentls-command' up to its \"serve\".
It checks the model of `agentls-settings' when that names one."
  (let ((model (plist-get agentls-settings :model)))
    (append (seq-take-while (lambda (arg) (not (equal arg "serve"))) agentls-command)
            (list "doctor" "--workspace" (expand-file-name root))
            (and (stringp model) (not (string-empty-p model)) (list "--model" model)))))

;;;###autoload
(defun agentls-doctor ()
  "Show what blocks or weakens the next ask, in *agentls doctor*."
  (interactive)
  (let* ((project (project-current))
         (root (if project (project-root project) default-directory))
         (buffer (get-buffer-create "*agentls doctor*"))
         (command (agentls-doctor--command root)))
    (unless (executable-find (car command))
      (user-error "Cannot run %s: install agentls or set `agentls-command'" (car command)))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer))
      (special-mode))
    (make-process
     :name "agentls-doctor"
     :buffer buffer
     :command command
     :noquery t
     :filter (lambda (process text)
               (with-current-buffer (process-buffer process)
                 (let ((inhibit-read-only t))
                   (goto-char (point-max))
                   (insert text))))
     :sentinel (lambda (process _event)
                 (when (memq (process-status process) '(exit signal))
                   (message "agentls doctor: %s"
                            (if (zerop (process-exit-status process))
                                "ready to ask"
                              "something blocks the next ask (see *agentls doctor*)")))))
    (display-buffer buffer)))

(provide 'agentls-doctor)
;;; agentls-doctor.el ends here
