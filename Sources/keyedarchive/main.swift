// keyedarchive: inspect and convert property lists and NSKeyedArchiver archives.
// Thin on purpose: parse arguments, call the libraries, print, exit.

let status = KeyedArchiveTool.run(Array(CommandLine.arguments.dropFirst()))
exitProcess(status)
