-- Headless Neovim 0.7 probe: attach Tether to the file given on the command line, wait for
-- its diagnostics, hover on the first one, write what came back as JSON and quit. An init
-- file run before it may set PROBE_CLIENT, a table of more fields for vim.lsp.start_client
-- (settings as a user writes them). Without PROBE_ROOT the probe starts no client of its own:
-- the init file is the snippet `tether editor-config neovim-0.7` prints, and that attaches it.
-- PROBE_OPEN names more files (one a line) opened afterwards, as a user goes on editing. The
-- server's messages (shown and logged), Neovim's notifications and errors are kept too.
local out = os.getenv('PROBE_OUT')
local result = {
  diagnostics = {}, hover = nil, error = nil, messages = {}, notices = {}, errors = {},
  attached = false,
}

for _, method in ipairs({ 'window/showMessage', 'window/logMessage' }) do
  vim.lsp.handlers[method] = function(_, params)
    table.insert(result.messages, { method = method, type = params.type, message = params.message })
  end
end
vim.notify = function(message, level)
  table.insert(result.notices, { message = message, level = level or vim.log.levels.INFO })
end

local function finish()
  local handle = io.open(out, 'w')
  handle:write(vim.fn.json_encode(result))
  handle:close()
  vim.cmd('qa!')
end

local function note_error()
  if vim.v.errmsg ~= '' then table.insert(result.errors, vim.v.errmsg) end
  vim.v.errmsg = ''
end

vim.api.nvim_create_autocmd('VimEnter', {
  callback = function()
    note_error()
    local ok, err = pcall(function()
      if os.getenv('PROBE_ROOT') then
        local id = vim.lsp.start_client(vim.tbl_extend('force', {
          name = 'tether',
          cmd = { os.getenv('PROBE_PY'), '-m', 'recall', 'lsp' },
          root_dir = os.getenv('PROBE_ROOT'),
        }, rawget(_G, 'PROBE_CLIENT') or {}))
        vim.lsp.buf_attach_client(0, id)
      end
      -- Attached, initialized or not yet (buf_get_clients sees initialized clients only).
      for id = 1, 8 do result.attached = result.attached or vim.lsp.buf_is_attached(0, id) end
      if result.attached then
        vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
      end
      for _, d in ipairs(vim.diagnostic.get(0)) do
        table.insert(result.diagnostics, {
          message = d.message, lnum = d.lnum, col = d.col, severity = d.severity,
          source = d.source,
        })
      end
      local first = result.diagnostics[1]
      if first then
        local params = {
          textDocument = { uri = vim.uri_from_bufnr(0) },
          position = { line = first.lnum, character = first.col },
        }
        local answers = vim.lsp.buf_request_sync(0, 'textDocument/hover', params, 10000)
        for _, answer in pairs(answers or {}) do
          if answer.result then result.hover = answer.result.contents.value end
        end
      end
      for path in (os.getenv('PROBE_OPEN') or ''):gmatch('[^\n]+') do
        local opened, problem = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(path))
        if not opened then table.insert(result.errors, tostring(problem)) end
        note_error()
      end
    end)
    if not ok then result.error = tostring(err) end
    finish()
  end,
})
