;;; full-record.el --- the README's rlog-show-full-record in a real Emacs  -*- lexical-binding: t -*-
;; emacs --batch -L editors/emacs -l editors/emacs/test/full-record.el
;; Env: RLOG_LS (the server binary), RLOG_FILE (a log beside its companion),
;; RLOG_SNIPPET (a file holding the README's snippet), RLOG_LINE (1-based line
;; to ask about), RLOG_OUT (JSON result).
(require 'json)
(require 'eglot)
(require 'rlog-mode)
(setq rlog-ls-program (getenv "RLOG_LS"))
(setq eglot-sync-connect t)
(load (expand-file-name "bounds.el" (file-name-directory load-file-name)) nil t)
(load (getenv "RLOG_SNIPPET") nil t)
(let ((result '()))
  (condition-case err
      (with-current-buffer (find-file-noselect (getenv "RLOG_FILE"))
        (apply #'eglot (eglot--guess-contact))
        (goto-char (point-min))
        (forward-line (1- (string-to-number (getenv "RLOG_LINE"))))
        (forward-char 30)
        (push (cons 'key (format "%S" (key-binding (kbd "C-c C-r")))) result)
        (rlog-show-full-record)
        (let ((buf (seq-find (lambda (b) (string-prefix-p "*rlog record:" (buffer-name b))) (buffer-list))))
          (if (null buf)
              (push (cons 'error "no record buffer") result)
            (with-current-buffer buf
              (push (cons 'name (buffer-name)) result)
              (push (cons 'text (buffer-string)) result)
              (push (cons 'readonly (if buffer-read-only t :json-false)) result))))
        (eglot-shutdown (eglot-current-server) nil rlog-test-wait))
    (error (push (cons 'error (format "%S" err)) result)))
  (with-temp-file (getenv "RLOG_OUT")
    (insert (json-encode result))))
