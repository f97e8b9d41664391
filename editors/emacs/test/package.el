;;; package.el --- install rlog-mode as a package and use it, in a real Emacs  -*- lexical-binding: t -*-
;; Two runs, as a user installs and then restarts Emacs:
;;   RLOG_PHASE=install emacs --batch -l package.el   package-install-file on
;;     rlog-mode.el into package-user-dir RLOG_PACKAGES (offline: no archives);
;;   RLOG_PHASE=use emacs --batch -l package.el   package-initialize only (no
;;     load-path, no require), the README's (add-hook 'rlog-mode-hook
;;     #'eglot-ensure), then open RLOG_FILE: the autoloads must pick rlog-mode,
;;     eglot must start rlog-ls from exec-path and show its diagnostics.
;; Env: RLOG_PACKAGES, RLOG_EL (rlog-mode.el), RLOG_FILE, RLOG_OUT (JSON result).
(require 'json)
(require 'package)
(setq package-user-dir (getenv "RLOG_PACKAGES")
      package-archives nil)
(let ((result '()))
  (condition-case err
      (pcase (getenv "RLOG_PHASE")
        ("install"
         (package-initialize)
         (package-install-file (getenv "RLOG_EL"))
         (push (cons 'installed
                     (vconcat (mapcar (lambda (p) (symbol-name (car p))) package-alist)))
               result))
        ("use"
         (package-initialize)
         (push (cons 'loaded_before (if (featurep 'rlog-mode) t :json-false)) result)
         (add-hook 'rlog-mode-hook #'eglot-ensure)
         (with-current-buffer (find-file-noselect (getenv "RLOG_FILE"))
           (push (cons 'mode (symbol-name major-mode)) result)
           (push (cons 'from (or (symbol-file 'rlog-mode) "")) result)
           ;; eglot-ensure connects from post-command-hook, after the command
           ;; that opened the file; batch Emacs has no command loop.
           (setq eglot-sync-connect t eglot-connect-timeout 120) ; bounds.el's, before eglot connects
           (run-hooks 'post-command-hook)
           (load (expand-file-name "bounds.el" (file-name-directory load-file-name)) nil t)
           (push (cons 'managed (if (and (fboundp 'eglot-managed-p) (eglot-managed-p)) t :json-false)) result)
           (let ((diags (and (bound-and-true-p flymake-mode) (rlog-test-diagnostics))))
             (push (cons 'diagnostics
                         (vconcat (mapcar (lambda (d)
                                            `((line . ,(line-number-at-pos (flymake-diagnostic-beg d)))
                                              (text . ,(flymake-diagnostic-text d))))
                                          diags)))
                   result))
           (when (eglot-current-server) (eglot-shutdown (eglot-current-server) nil rlog-test-wait))))
        (phase (error "Unknown RLOG_PHASE %S" phase)))
    (error (push (cons 'error (format "%S" err)) result)))
  (with-temp-file (getenv "RLOG_OUT")
    (insert (json-encode result))))
