;;; agentls-doctor.el --- What blocks or weakens the next agentls ask  -*- lexical-binding: t; -*-

;; This file is part of the agentls package; see agentls.el for its headers.
;; SPDX-License-Identifier: MIT

;;; Commentary:

;; M-x agentls-doctor runs `agentls doctor' (the program of
;; `agentls-command') for the current project and shows its report: the
;; server's version, the model and whether its key is set (never the key),
;; ripgrep, the sandbox, the settings files and whether the workspace's is
;; approved, MCP and language servers, and the editor integrations found.

;; The workspace is the one agentls works on (the project of its eglot
;; server), whatever buffer has focus; the agentls.el doing the asking is
;; named among the editor clients.

;;; Code:

(require 'agentls)
(require 'lisp-mnt)
(require 'project)
(require 'seq)

(defun agentls-doctor--command (root)
  "The doctor command line for ROOT, from `agentls-command' up to its \"serve\".
It checks the model of `agentls-settings' when that names one."
  (let ((model (plist-get agentls-settings :model)))
    (append (seq-take-while (lambda (arg) (not (equal arg "serve"))) agentls-command)
            (list "doctor" "--workspace" (expand-file-name root))
            (and (stringp model) (not (string-empty-p model)) (list "--model" model)))))

(defun agentls-doctor--server ()
  "The agentls server of this buffer, else the one asked last, else any running."
  (let ((here (ignore-errors (eglot-current-server))))
    (cond ((cl-typep here 'agentls-server) here)
          ((and agentls--server (jsonrpc-running-p agentls--server)) agentls--server)
          (t (cl-loop for servers being the hash-values of eglot--servers-by-project
                      thereis (cl-find-if (lambda (server) (cl-typep server 'agentls-server))
                                          servers))))))

(defun agentls-doctor--root ()
  "The folder agentls works on: its server's project, else this buffer's project."
  (let* ((server (agentls-doctor--server))
         (project (if server (eglot--project server) (project-current))))
    (if project (project-root project) default-directory)))

(defun agentls-doctor--this-client ()
  "The agentls.el this Emacs runs, as (FOLDER . DESCRIPTION).
DESCRIPTION is \"emacs VERSION (FOLDER, loaded here)\"."
  (when-let ((file (symbol-file 'agentls-ask 'defun)))
    (let ((folder (directory-file-name (file-name-directory file)))
          (source (concat (file-name-sans-extension file) ".el")))
      (cons folder (format "emacs %s (%s, loaded here)"
                           (or (and (file-readable-p source) (lm-version source)) "?")
                           folder)))))

(defun agentls-doctor--name-this-client (buffer)
  "Name this Emacs's agentls.el on the editors line of the report in BUFFER.
`agentls doctor' finds only installed packages, not a folder on `load-path'."
  (when-let ((client (agentls-doctor--this-client)))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (save-excursion
          (goto-char (point-min))
          (when (re-search-forward "^editors +\\(.*\\)$" nil t)
            (let ((found (match-string 1)))
              (cond ((equal found "no agentls editor client found")
                     (replace-match (cdr client) t t nil 1))
                    ((not (string-search (car client) found))
                     (replace-match (concat found "; " (cdr client)) t t nil 1))))))))))

;;;###autoload
(defun agentls-doctor ()
  "Show what blocks or weakens the next ask, in *agentls doctor*."
  (interactive)
  (let* ((root (agentls-doctor--root))
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
                   (agentls-doctor--name-this-client (process-buffer process))
                   (message "agentls doctor: %s"
                            (if (zerop (process-exit-status process))
                                "ready to ask"
                              "something blocks the next ask (see *agentls doctor*)")))))
    (display-buffer buffer)))

(provide 'agentls-doctor)
;;; agentls-doctor.el ends here
