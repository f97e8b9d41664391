;;; eglot.el --- check rlog-mode's eglot registration in a real Emacs  -*- lexical-binding: t -*-
;; emacs --batch -L editors/emacs -l editors/emacs/test/eglot.el
;; Env: RLOG_LS (the server binary), RLOG_FILE (a log), RLOG_OUT (JSON result).
;; Opens the log, lets eglot pick the server from `eglot-server-programs'
;; (rlog-mode registers it), and waits for the server's diagnostics in
;; flymake. (What the server answers is tested in e2e/.)
(require 'json)
(require 'eglot)
(require 'rlog-mode)
(setq rlog-ls-program (getenv "RLOG_LS"))
(setq eglot-sync-connect t)
(load (expand-file-name "bounds.el" (file-name-directory load-file-name)) nil t)
(let ((result '()) (diags nil))
  (condition-case err
      (with-current-buffer (find-file-noselect (getenv "RLOG_FILE"))
        (push (cons 'mode (symbol-name major-mode)) result)
        (let ((contact (eglot--guess-contact)))
          (push (cons 'contact (format "%S" (nth 3 contact))) result)
          (apply #'eglot contact))
        (push (cons 'managed (if (eglot-managed-p) t :json-false)) result)
        (setq diags (rlog-test-diagnostics))
        (push (cons 'diagnostics
                    (vconcat (mapcar (lambda (d)
                                       `((line . ,(line-number-at-pos (flymake-diagnostic-beg d)))
                                         (text . ,(flymake-diagnostic-text d))))
                                     diags)))
              result)
        (eglot-shutdown (eglot-current-server) nil rlog-test-wait))
    (error (push (cons 'error (format "%S" err)) result)))
  (with-temp-file (getenv "RLOG_OUT")
    (insert (json-encode result))))
