-- Headless Neovim 0.11 probe, run after the configuration `tether editor-config neovim` prints:
-- run tether.supersede on the memory PROBE_MEMORY from the file given on the command line, as
-- its "Supersede…" code action does, wait for the draft to open, write PROBE_SUMMARY as its
-- last line and save it; once the memory is said superseded, write as JSON the messages shown,
-- the draft's name and how many Tether clients run, and quit.
local result = { messages = {}, draft = nil, clients = 0, error = nil }
vim.lsp.handlers['window/showMessage'] = function(_, params)
  table.insert(result.messages, params.message)
end

vim.api.nvim_create_autocmd('VimEnter', {
  nested = true,
  callback = function()
    local ok, err = pcall(function()
      local code = vim.api.nvim_get_current_buf()
      vim.wait(30000, function() return #vim.lsp.get_clients({ bufnr = code }) > 0 end, 50)
      local client = vim.lsp.get_clients({ bufnr = code, name = 'tether' })[1]
      local command = { title = 'Supersede', command = 'tether.supersede',
        arguments = { { memoryId = os.getenv('PROBE_MEMORY') } } }
      client:exec_cmd(command, { bufnr = code })
      vim.wait(30000, function() return vim.api.nvim_buf_get_name(0):find('drafts') ~= nil end, 50)
      local draft = vim.api.nvim_get_current_buf()
      result.draft = vim.api.nvim_buf_get_name(draft)
      vim.wait(30000, function() return #vim.lsp.get_clients({ bufnr = draft }) > 0 end, 50)
      local last = vim.api.nvim_buf_line_count(draft)
      vim.api.nvim_buf_set_lines(draft, last - 1, last, false, { os.getenv('PROBE_SUMMARY') })
      vim.cmd('silent write')
      vim.wait(30000, function()
        for _, message in ipairs(result.messages) do
          if message:find('superseded by', 1, true) or message:find('not remembered', 1, true) then
            return true
          end
        end
        return false
      end, 50)
      result.clients = #vim.lsp.get_clients({ name = 'tether' })
    end)
    if not ok then result.error = tostring(err) end
    local handle = io.open(os.getenv('PROBE_OUT'), 'w')
    handle:write(vim.json.encode(result))
    handle:close()
    vim.cmd('qa!')
  end,
})
