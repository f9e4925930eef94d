;;; emacs_demo_person.el --- a new user runs the bundled demo in Emacs (batch)  -*- lexical-binding: t; -*-

;; Open greet.py, M-x eglot, ask the demo's prompt with the `scripted:demo'
;; model; the answers are typed on stdin, as a person types them in the
;; minibuffer.  AGENTLS_TEST_FLOW is "agentls.el" or "plain" (eglot-plain.el,
;; eglot's own prompts).  Then the buffer, the disk, Emacs's view of the file's
;; time stamp and the editor's undo are noted in $AGENTLS_TEST_REPORT (JSON).
;; With AGENTLS_TEST_NO_KEY (plain), the person asks first with no model set
;; and no key, then does what the error says: the model in the settings file.

(require 'json)
(require 'cl-lib)

(defvar person-report (list :prompts [] :errors [] :shown []))
(defvar person-flow (getenv "AGENTLS_TEST_FLOW"))
(defvar person-prompt
  "Add a shout() function to greet.py that returns the greeting in capitals, then run it.")

(defun person-note (key value)
  (setq person-report (plist-put person-report key value)))

(defun person-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun person-text (buffer)
  (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max))))

(defun person-code-action ()
  "M-x eglot-code-actions in greet.py, the title typed on stdin."
  (with-current-buffer (find-buffer-visiting "greet.py")
    (goto-char (point-min))
    (let ((last-nonmenu-event ?\C-m)) ; typed, as a person does: no popup menu
      (call-interactively #'eglot-code-actions))))

(defun person-running-p (server)
  (cl-some (lambda (session) (eq (plist-get session :running) t))
           (append (jsonrpc-request server :workspace/executeCommand
                                    '(:command "agentls.sessions"))
                   nil)))

(defvar person-never-saves (getenv "AGENTLS_TEST_NO_SAVE")
  "The person never saves (agentls then writes the file itself).")

(defun person-heard (format &rest args)
  "What eglot shows of the server's messages; asked to save, the person saves."
  (let ((said (apply #'format format args)))
    (person-note :shown (vconcat (plist-get person-report :shown) (vector said)))
    (when (and (string-match-p "save it to go on" said) (not person-never-saves))
      (run-at-time 0 nil (lambda ()
                           (with-current-buffer (find-buffer-visiting "greet.py")
                             (save-buffer)))))))

(defvar person-echoed nil "What the echo area said, newest first.")
(advice-add 'message :after (lambda (format &rest args)
                              (when format (push (apply #'format-message format args) person-echoed))))

(defun person-prompted (read prompt &rest args)
  "Note PROMPT and the diff on screen with it; the answer comes from stdin."
  (let ((diff (get-buffer "*agentls diff*")))
    (person-note :prompts
                 (vconcat (plist-get person-report :prompts)
                          (vector (list :prompt prompt
                                        :diff (and diff (get-buffer-window diff t)
                                                   (with-current-buffer diff (buffer-string))))))))
  (apply read prompt args))

(defvar person-without-key (getenv "AGENTLS_TEST_NO_KEY"))

(condition-case err
    (progn
      (if (equal person-flow "plain")
          (progn
            (load (expand-file-name "eglot-plain.el" (getenv "AGENTLS_EL_DIR")))
            (require 'eglot)
            (advice-add 'eglot--message :after #'person-heard)
            (advice-add 'completing-read :around #'person-prompted)
            (unless person-without-key
              (setq agentls-plain-settings
                    `(:model "scripted:demo" :approvalTimeoutSeconds
                             ,(if person-never-saves 3 120)))))
        (require 'agentls)
        (setq agentls-command (append (json-read-from-string (getenv "AGENTLS_TEST_SERVER")) nil))
        (setq agentls-settings '(:model "scripted:demo"))
        (agentls-eglot-setup '(python-mode))
        (let ((choose agentls-choose-function))
          (setq agentls-choose-function
                (lambda (prompt choices)
                  (person-note :prompts (vconcat (plist-get person-report :prompts)
                                                 (vector (list :prompt prompt
                                                               :choices (vconcat choices)))))
                  (if (and (getenv "AGENTLS_TEST_QUIT") (not (plist-get person-report :quit))
                           (string-match-p "edit greet.py" prompt))
                      ;; C-g on the review; then answer it from the code actions
                      (progn (person-note :quit t)
                             (run-at-time 0.2 nil #'person-code-action)
                             nil)
                    (funcall choose prompt choices))))))
      (find-file "greet.py")
      (let ((source (current-buffer)) server)
        (person-note :before (person-text source))
        (call-interactively #'eglot)
        (person-wait (lambda () (setq server (with-current-buffer source
                                                (eglot-current-server))))
                     30)
        (if (equal person-flow "plain")
            (progn
              (when person-without-key
                (agentls-plain-ask person-prompt) ; no key: the echo area says what to do
                (person-note :noKey (car person-echoed))
                (let ((settings (expand-file-name "agentls/settings.json"
                                                  (getenv "XDG_CONFIG_HOME"))))
                  (make-directory (file-name-directory settings) t)
                  (write-region "{\"model\": \"scripted:demo\"}\n" nil settings)))
              (agentls-plain-ask person-prompt)
              (person-wait (lambda () (person-running-p server)) 10)
              (person-note :asked (if (person-wait (lambda () (not (person-running-p server))) 60)
                                      t :json-false)))
          (agentls-ask person-prompt)
          (person-note :asked (if (person-wait (lambda () agentls--last-result) 60) t :json-false))
          (person-note :result agentls--last-result)
          (person-note :log (person-text "*agentls*")))
        (with-current-buffer source
          (person-note :buffer (person-text source))
          (person-note :modified (if (buffer-modified-p) t :json-false))
          ;; nil would mean a "changed on disk" question at the next edit or save
          (person-note :modtimeOk (if (verify-visited-file-modtime source) t :json-false))
          (undo-boundary) ; as the command loop leaves one after each command
          (undo)
          (person-note :afterUndo (person-text source)))
        (person-note :transcript
                     (plist-get (jsonrpc-request server :workspace/executeCommand
                                                 '(:command "agentls.showTranscript"))
                                :uri))))
  (error (person-note :errors (vector (format "%S" err)))))

(with-temp-file (getenv "AGENTLS_TEST_REPORT")
  (insert (json-encode person-report)))
(kill-emacs 0)
