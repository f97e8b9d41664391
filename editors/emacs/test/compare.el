;;; compare.el --- M-x rlog-compare on two sessions in a real Emacs  -*- lexical-binding: t -*-
;; emacs --batch -L editors/emacs -l editors/emacs/test/compare.el
;; Env: RLOG_LS (the server binary), RLOG_A (the session visited when
;; rlog-compare runs), RLOG_B (the other session), RLOG_OUT (JSON result):
;; each side's buffer name, text, mode, read-only state and server, and
;; the text of each side of each difference ediff found; before that, the
;; error on a file that is no session.
(require 'json)
(require 'eglot)
(require 'ediff)
(require 'rlog-mode)
(setq rlog-ls-program (getenv "RLOG_LS"))
(setq eglot-sync-connect t)
(load (expand-file-name "bounds.el" (file-name-directory load-file-name)) nil t)
(setq ediff-window-setup-function #'ediff-setup-windows-plain)

(let ((result '()))
  (condition-case err
      (progn
        (let ((notes (make-temp-file "notes" nil ".txt" "hello\n")))
          ;; A file that is no session: a user-error, and no ediff.
          (with-current-buffer (find-file-noselect (getenv "RLOG_A"))
            (condition-case e
                (progn (rlog-compare notes) (push (cons 'refused "no error") result))
              (user-error (push (cons 'refused (error-message-string e)) result))))
          (push (cons 'ediffs_after_refusal (length ediff-session-registry)) result))
        (let ((control (with-current-buffer (find-file-noselect (getenv "RLOG_A"))
                         (rlog-compare (getenv "RLOG_B")))))
          (with-current-buffer control
            (push (cons 'sides
                        (vconcat
                         (mapcar (lambda (buf)
                                   (with-current-buffer buf
                                     `((name . ,(buffer-name))
                                       (text . ,(buffer-substring-no-properties (point-min) (point-max)))
                                       (mode . ,(symbol-name major-mode))
                                       (readonly . ,(if buffer-read-only t :json-false))
                                       (server . ,(if (bound-and-true-p eglot--managed-mode) t :json-false)))))
                                 (list ediff-buffer-A ediff-buffer-B))))
                  result)
            (push (cons 'differences
                        (vconcat
                         (mapcar (lambda (n)
                                   (mapcar (lambda (side)
                                             (let ((o (ediff-get-diff-overlay n side)))
                                               (with-current-buffer (overlay-buffer o)
                                                 (buffer-substring-no-properties (overlay-start o) (overlay-end o)))))
                                           '(A B)))
                                 (number-sequence 0 (1- ediff-number-of-differences)))))
                  result))))
    (error (push (cons 'error (error-message-string err)) result)))
  (with-temp-file (getenv "RLOG_OUT")
    (insert (json-encode result))))
(kill-emacs 0)
