;;; sessions.el --- M-x rlog-sessions and rlog-sessions-touched in a real Emacs  -*- lexical-binding: t -*-
;; emacs --batch -L editors/emacs -l editors/emacs/test/sessions.el, in a
;; folder with sessions.
;; Env: RLOG_LS (the server binary), RLOG_TOUCHED (a file a session
;; changed), RLOG_OUT (JSON result).
(require 'json)
(require 'eglot)
(require 'grep)
(require 'rlog-mode)
(setq rlog-ls-program (getenv "RLOG_LS"))
(setq eglot-sync-connect t)
(load (expand-file-name "bounds.el" (file-name-directory load-file-name)) nil t)

(let ((result '()))
  (condition-case err
      (let (offered)
        ;; The first candidate is chosen.
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt collection &rest _)
                     (setq offered collection)
                     (car collection))))
          (with-temp-buffer
            (setq default-directory (file-name-as-directory (expand-file-name default-directory)))
            (push (cons 'view (buffer-name (rlog-sessions))) result)))
        (push (cons 'candidates (vconcat offered)) result)
        (let ((buf (rlog-sessions-touched (getenv "RLOG_TOUCHED"))))
          (with-current-buffer buf
            (push (cons 'touched (buffer-substring-no-properties (point-min) (point-max))) result)
            (goto-char (point-min))
            (compilation-next-error 1)
            (compile-goto-error)
            (push (cons 'jump `((file . ,buffer-file-name) (line . ,(line-number-at-pos)))) result))))
    (error (push (cons 'error (error-message-string err)) result)))
  (with-temp-file (getenv "RLOG_OUT")
    (insert (json-encode result))))
(kill-emacs 0)
