-- Headless Neovim 0.11 probe, run after the configuration `tether editor-config neovim`
-- prints (vim.lsp.config + vim.lsp.enable, as docs/editors.md gives it): wait for Tether's
-- diagnostics on the file given on the command line, then ask for the hover card and the code
-- actions at the first one, write what came back as JSON and quit. The server's messages
-- (shown and logged) are kept too, and the settings pull is waited for before the hover, so a
-- complaint about the settings has arrived by the time the probe quits.
local out = os.getenv('PROBE_OUT')
local result = {
  diagnostics = {}, hover = nil, actions = {}, client = nil, error = nil,
  messages = {}, configuration_answers = 0, encoded = nil,
}

for _, method in ipairs({ 'window/showMessage', 'window/logMessage' }) do
  vim.lsp.handlers[method] = function(_, params)
    table.insert(result.messages, { method = method, type = params.type, message = params.message })
  end
end
local answer_configuration = vim.lsp.handlers['workspace/configuration']
vim.lsp.handlers['workspace/configuration'] = function(...)
  result.configuration_answers = result.configuration_answers + 1
  return answer_configuration(...)
end

local function finish()
  local handle = io.open(out, 'w')
  handle:write(vim.json.encode(result))
  handle:close()
  vim.cmd('qa!')
end

vim.api.nvim_create_autocmd('VimEnter', {
  callback = function()
    local ok, err = pcall(function()
      vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
      vim.wait(30000, function() return result.configuration_answers > 0 end, 50)
      local clients = vim.lsp.get_clients({ bufnr = 0, name = 'tether' })
      if clients[1] then
        result.client = clients[1].name
        -- The JSON Neovim makes of the config's tables: what initialize and the pull carry.
        result.encoded = {
          init_options = vim.json.encode(clients[1].config.init_options),
          settings = vim.json.encode(clients[1].settings),
        }
      end
      for _, d in ipairs(vim.diagnostic.get(0)) do
        table.insert(result.diagnostics, {
          message = d.message, lnum = d.lnum, col = d.col, severity = d.severity,
          source = d.source, code = d.code,
        })
      end
      local first = result.diagnostics[1]
      if not first then return end
      local at = { line = first.lnum, character = first.col }
      local where = { textDocument = { uri = vim.uri_from_bufnr(0) }, position = at }
      local hovers = vim.lsp.buf_request_sync(0, 'textDocument/hover', where, 10000)
      for _, answer in pairs(hovers or {}) do
        if answer.result then result.hover = answer.result.contents.value end
      end
      local lsp_diagnostics = {}
      for _, d in ipairs(vim.diagnostic.get(0)) do
        table.insert(lsp_diagnostics, d.user_data and d.user_data.lsp or nil)
      end
      local params = {
        textDocument = where.textDocument,
        range = { start = at, ['end'] = at },
        context = { diagnostics = lsp_diagnostics },
      }
      local answers = vim.lsp.buf_request_sync(0, 'textDocument/codeAction', params, 10000)
      for _, answer in pairs(answers or {}) do
        for _, action in ipairs(answer.result or {}) do
          table.insert(result.actions, action.title)
        end
      end
    end)
    if not ok then result.error = tostring(err) end
    finish()
  end,
})
