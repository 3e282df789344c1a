// The interpreter selected in the Python extension, when it is installed (it is optional).

import * as vscode from 'vscode';

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): { path?: string } | undefined;
  };
}

/** The Python interpreter chosen for a folder in the Python extension, if there is one. */
export async function selectedInterpreter(folder: vscode.Uri): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>('ms-python.python');
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    return api?.environments?.getActiveEnvironmentPath?.(folder)?.path || undefined;
  } catch {
    return undefined; // the Python extension failed to start: fall back to python3
  }
}
