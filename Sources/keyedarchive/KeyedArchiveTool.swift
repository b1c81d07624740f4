import Foundation
import PropertyList

/// Exit statuses, named so scripts can tell a bad invocation from a bad input.
enum ExitStatus {
    static let success: Int32 = 0
    /// The input was read and found faulty (or refused by policy).
    static let failure: Int32 = 1
    /// The command line itself was wrong.
    static let usage: Int32 = 2
}

/// A usage mistake, reported with the argument position it concerns.
struct UsageError: Error {
    var message: String
}

/// A fault in the input, reported as one line naming the file.
struct InputError: Error {
    var message: String
}

protocol ToolCommand {
    static var name: String { get }
    static var synopsis: String { get }
    /// What `keyedarchive COMMAND --help` prints: the usage line, what the command does, its
    /// options and an example.
    static var help: String { get }
    /// Parses the arguments that follow the command name; throws ``UsageError``.
    init(arguments: [String]) throws(UsageError)
    /// Runs the command; throws ``InputError`` (or any error, reported as a failure).
    func run() throws -> Int32
}

enum KeyedArchiveTool {
    static var commands: [any ToolCommand.Type] { [
        PlistCommand.self, ConvertCommand.self, DumpCommand.self, JSONCommand.self, ValidateCommand.self, DiffCommand.self,
        SchemaCommand.self, CompatCommand.self,
    ] }

    static var usage: String {
        var text = "usage: keyedarchive <command> [options]\n\ncommands:\n"
        for command in commands {
            text += "  \(command.synopsis)\n"
        }
        return text + usageFooter
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first else {
            writeStandardError(usage)
            return ExitStatus.usage
        }
        if name == "--version" || name == "version" {
            writeStandardOutput(Array(versionText.utf8))
            return ExitStatus.success
        }
        if name == "help", arguments.count == 2, let help = help(forCommand: arguments[1]) {
            writeStandardOutput(Array(help.utf8))
            return ExitStatus.success
        }
        if name == "-h" || name == "--help" || name == "help" {
            writeStandardOutput(Array(usage.utf8))
            return ExitStatus.success
        }
        guard let commandType = commands.first(where: { $0.name == name }) else {
            writeStandardError("keyedarchive: error: unknown command '\(oneLine(name))' (argument 1)\n\n" + usage)
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        // Only as the command's sole argument: `-o -h` names a file.
        if rest.count == 1, rest[0] == "-h" || rest[0] == "--help" {
            writeStandardOutput(Array(commandType.help.utf8))
            return ExitStatus.success
        }
        do {
            let command = try commandType.init(arguments: rest)
            return try command.run()
        } catch let error as UsageError {
            writeStandardError("keyedarchive \(name): error: \(oneLine(error.message))\nusage: keyedarchive \(commandType.synopsis)\n")
            return ExitStatus.usage
        } catch let error as InputError {
            writeStandardError("keyedarchive \(name): error: \(oneLine(error.message))\n")
            return ExitStatus.failure
        } catch {
            writeStandardError("keyedarchive \(name): error: \(oneLine("\(error)"))\n")
            return ExitStatus.failure
        }
    }
}

/// A message (or a file name) as one line that cannot drive a terminal: the libraries already
/// escape what they take from an input (Docs/Security.md), and since that escape is idempotent
/// this is only a safety net for a message that slipped through, or for a file name.
func oneLine(_ text: String) -> String {
    text.escapedForMessage
}

func exitProcess(_ status: Int32) -> Never {
    exit(status)
}

func writeStandardOutput(_ bytes: [UInt8]) {
    writeStandardOutput(bytes[...])
}

func writeStandardOutput(_ bytes: ArraySlice<UInt8>) {
    FileHandle.standardOutput.write(Data(bytes))
}

func writeStandardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// The most bytes the tool reads from one input: 1 GiB, far beyond any property list we know
/// of, and short of what a stream without end (`/dev/zero`, a pipe) would cost.
let maximumInputByteCount = 1 << 30

/// Reads a whole file, or standard input for "-", in chunks: an input that starts with
/// neither a bplist00 header nor XML is refused after its first chunk, and one longer than
/// ``maximumInputByteCount`` once it passes it. With `acceptingJSON`, an input that starts as
/// JSON does (the canonical property-list JSON `convert` reads) is read whole too.
func readInput(_ path: String, acceptingJSON: Bool = false) throws(InputError) -> [UInt8] {
    let handle: FileHandle
    if path == "-" {
        handle = FileHandle.standardInput
    } else {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputError(message: "\(path): cannot read: no such file")
        }
        if isDirectory.boolValue {
            throw InputError(message: "\(path): is a directory, not a file")
        }
        guard let opened = FileHandle(forReadingAtPath: path) else {
            throw InputError(message: "\(path): cannot read: permission denied or not a readable file")
        }
        handle = opened
    }
    defer { if path != "-" { try? handle.close() } }
    var bytes: [UInt8] = []
    let chunkSize = 1 << 20
    while true {
        let chunk: Data?
        do {
            chunk = try handle.read(upToCount: chunkSize)
        } catch {
            throw InputError(message: "\(path): cannot read: \((error as NSError).localizedDescription)")
        }
        guard let chunk, !chunk.isEmpty else { break }
        guard bytes.count + chunk.count <= maximumInputByteCount else {
            throw InputError(message: "\(path): input is longer than \(maximumInputByteCount) bytes, the most this tool reads")
        }
        let isFirst = bytes.isEmpty
        bytes.append(contentsOf: chunk)
        if isFirst, !(acceptingJSON && PropertyListJSONReader.looksLikeJSON(bytes)), let fault = notAPropertyList(bytes) {
            throw InputError(message: "\(path): \(fault)")
        }
    }
    return bytes
}

/// The codec's own refusal of `prefix`, the first bytes read, when they already show the input
/// is neither format (white space alone does not: XML may follow).
private func notAPropertyList(_ prefix: [UInt8]) -> PropertyListError? {
    // A UTF-8 byte-order mark may come before the white space (the codec accepts both).
    let body = prefix.starts(with: [0xEF, 0xBB, 0xBF]) ? prefix.dropFirst(3) : prefix[...]
    let isWhitespace = body.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
    let format = prefix.withUnsafeBytes { PropertyListCodec.detectFormat($0) }
    guard format == nil, !isWhitespace, prefix.count >= 8 else { return nil }
    do {
        _ = try PropertyListCodec.readFile(prefix)
        return nil
    } catch {
        return error
    }
}

func writeOutput(_ bytes: [UInt8], to path: String?) throws(InputError) {
    guard let path, path != "-" else {
        writeStandardOutput(bytes)
        return
    }
    do {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    } catch {
        throw InputError(message: "\(path): cannot write: \((error as NSError).localizedDescription)")
    }
}

/// Reads and parses a property-list file, turning a parse fault into the one-line report.
func readPropertyListFile(_ path: String) throws(InputError) -> PropertyListFile {
    let bytes = try readInput(path)
    do {
        return try PropertyListCodec.readFile(bytes)
    } catch {
        throw InputError(message: "\(path): \(error)")
    }
}

/// Splits `arguments` into positionals and `--option value` pairs for the given option names.
struct ParsedArguments {
    var positionals: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []
    /// Every value of each option given in `repeating`, in order.
    var repeatedOptions: [String: [String]] = [:]

    init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String> = [], repeating: Set<String> = []) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if valued.contains(argument) || repeating.contains(argument) {
                guard index + 1 < arguments.count else {
                    throw UsageError(message: "option \(argument) (argument \(index + 2)) needs a value")
                }
                options[argument] = arguments[index + 1]
                if repeating.contains(argument) { repeatedOptions[argument, default: []].append(arguments[index + 1]) }
                index += 2
                continue
            }
            if allowedFlags.contains(argument) {
                flags.insert(argument)
            } else if argument.hasPrefix("-") && argument != "-" {
                throw UsageError(message: "unknown option '\(argument)' (argument \(index + 2))")
            } else {
                positionals.append(argument)
            }
            index += 1
        }
    }
}
