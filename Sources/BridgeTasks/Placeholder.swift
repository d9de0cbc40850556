// Stock tasks: see Alert and History.
