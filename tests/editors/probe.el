;;; probe.el --- headless Emacs + eglot probe for Tether's diagnostics  -*- lexical-binding: t -*-
;; Opens PROBE_FILE with eglot running the Tether server, waits for its first non-empty
;; publishDiagnostics, writes them to PROBE_OUT as JSON and exits. (flymake does not run in
;; batch mode, so the notification itself is what is recorded.)
(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)
(require 'eglot)
(require 'cl-lib)
(require 'json)

(defvar probe-diagnostics nil)

(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql textDocument/publishDiagnostics)) &key uri diagnostics
           &allow-other-keys)
  (when (and (> (length diagnostics) 0) (null probe-diagnostics))
    (setq probe-diagnostics (list :uri uri :diagnostics diagnostics))))

(add-to-list 'eglot-server-programs
             `(python-mode . (,(getenv "PROBE_PY") "-m" "recall" "lsp")))
(setq eglot-sync-connect t)
(find-file (getenv "PROBE_FILE"))
(python-mode)
(apply #'eglot (eglot--guess-contact))
(let ((deadline (+ (float-time) 30)))
  (while (and (null probe-diagnostics) (< (float-time) deadline))
    (accept-process-output nil 0.1)))
(with-temp-file (getenv "PROBE_OUT")
  (insert (json-encode (or probe-diagnostics (list :uri "" :diagnostics [])))))
(kill-emacs 0)
