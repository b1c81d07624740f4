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
        SchemaCommand.self, CompatCommand.self, GraphCommand.self,
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
    LibC.exit(status)
}

func writeStandardOutput(_ bytes: [UInt8]) {
    writeStandardOutput(bytes[...])
}

func writeStandardOutput(_ bytes: ArraySlice<UInt8>) {
    _ = bytes.withUnsafeBytes { writeAll($0, to: LibC.standardOutput) }
}

func writeStandardError(_ text: String) {
    var text = text
    _ = text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: LibC.standardError) }
}

/// Writes all of `bytes` to `descriptor` (a short write or an interrupted one goes on);
/// returns the failure's `errno`, or 0.
@discardableResult
func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
    guard let start = bytes.baseAddress else { return 0 }
    var written = 0
    while written < bytes.count {
        let result = LibC.write(descriptor, from: start + written, count: bytes.count - written)
        if result < 0 {
            let failure = LibC.lastError
            if failure == LibC.interrupted { continue }
            return failure
        }
        written += result
    }
    return 0
}

/// The most bytes the tool reads from one input: 1 GiB, far beyond any property list we know
/// of, and short of what a stream without end (`/dev/zero`, a pipe) would cost.
let maximumInputByteCount = 1 << 30

/// Reads a whole file, or standard input for "-". A regular file is read into one buffer of its
/// size (no growth, no copy); a pipe or device in chunks. An input that starts with neither a
/// bplist00 header nor XML is refused after its first chunk, and one longer than
/// ``maximumInputByteCount`` once it passes it. With `acceptingJSON`, an input that starts as
/// JSON does (the canonical property-list JSON `convert` reads) is read whole too. Every
/// command reads its input here.
func readInput(_ path: String, acceptingJSON: Bool = false) throws(InputError) -> [UInt8] {
    let descriptor: Int32
    if path == "-" {
        descriptor = LibC.standardInput
    } else {
        guard let status = LibC.status(ofPath: path) else {
            throw InputError(message: "\(path): cannot read: no such file")
        }
        if status.kind == .directory {
            throw InputError(message: "\(path): is a directory, not a file")
        }
        descriptor = LibC.openForReading(path)
        guard descriptor >= 0 else {
            throw InputError(message: "\(path): cannot read: permission denied or not a readable file")
        }
    }
    defer { if path != "-" { LibC.close(descriptor) } }
    // A regular file's size is known: one exact buffer. It may still change while it is read,
    // so the reading loop below takes whatever is there.
    let status = LibC.status(ofDescriptor: descriptor)
    let expected = status?.kind == .regular ? status?.size : nil
    if let expected, expected > maximumInputByteCount {
        throw InputError(message: "\(path): input is longer than \(maximumInputByteCount) bytes, the most this tool reads")
    }
    let chunkSize = 1 << 20
    var failure: Int32 = 0
    var fault: PropertyListError?
    var atEnd = false
    var checkedPrefix = false
    /// Reads into `buffer` until it is full or the input ends; returns the count read. The
    /// first chunk of the input is checked as soon as it is read (all of it, or the whole input
    /// if shorter), so that a file of something else is refused at once.
    func fill(_ buffer: UnsafeMutableRawBufferPointer, from start: Int) -> Int {
        var filled = start
        func checkPrefix() {
            checkedPrefix = true
            let prefix = [UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<min(filled, chunkSize)]))
            if !(acceptingJSON && PropertyListJSONReader.looksLikeJSON(prefix)) { fault = notAPropertyList(prefix) }
        }
        guard let base = buffer.baseAddress else { return filled }
        while filled < buffer.count, failure == 0, fault == nil {
            let result = LibC.read(descriptor, into: base + filled, count: buffer.count - filled)
            if result < 0 {
                let error = LibC.lastError
                if error != LibC.interrupted { failure = error }
                continue
            }
            if result == 0 {
                atEnd = true
                break
            }
            filled += result
            if !checkedPrefix, filled >= min(buffer.count, chunkSize) { checkPrefix() }
        }
        if !checkedPrefix, atEnd, filled > 0 { checkPrefix() }
        return filled
    }
    // One byte past the size: the read that finds the end then needs no more room.
    let capacity = min((expected ?? chunkSize) + 1, maximumInputByteCount + 1)
    var bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
        initialized = fill(UnsafeMutableRawBufferPointer(buffer), from: 0)
    }
    // A pipe, or a file that grew while it was read: the rest in chunks.
    if !atEnd, failure == 0, fault == nil {
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while !atEnd, failure == 0, fault == nil, bytes.count <= maximumInputByteCount {
            let count = chunk.withUnsafeMutableBytes { fill($0, from: 0) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
    if let fault { throw InputError(message: "\(path): \(fault)") }
    if failure != 0 {
        throw InputError(message: "\(path): cannot read: \(LibC.describe(failure))")
    }
    guard bytes.count <= maximumInputByteCount else {
        throw InputError(message: "\(path): input is longer than \(maximumInputByteCount) bytes, the most this tool reads")
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
    var destination = OutputDestination(path)
    bytes.withUnsafeBytes { destination.write($0) }
    try destination.finish()
}

/// Where a command's output goes: standard output, or the file `-o` names, created or replaced
/// as `-o` always did — but only once the whole output is written. The bytes go to a new file
/// beside it (`.NAME.keyedarchive-XXXXXX`, made with `mkstemp`, so no other file is ever
/// touched), synced and then renamed over it, keeping an existing file's mode; an output not
/// finished (a refused input, a failed write) removes that file and leaves `-o`'s file as it
/// was. Nothing is created before the first bytes are ready. Where a rename would change what
/// the name is — not a regular file (a device such as `/dev/null`, a pipe), a file with other
/// hard links, one the user may not write or does not own, or a directory where no new file
/// can be made — the file itself is opened and truncated as before. A symbolic link is
/// followed: the file it names is replaced, the link kept.
struct OutputDestination: ~Copyable {
    private let path: String?
    /// The file the output replaces when it goes through `temporary`.
    private var target: String?
    /// The file being written, renamed over `target` at the end.
    private var temporary: String?
    private var descriptor: Int32 = -1
    private var failure: Int32 = 0
    private var finished = false

    /// Standard output for nil or "-", else the file at `path`.
    init(_ path: String?) {
        self.path = path == "-" ? nil : path
    }

    deinit {
        guard !finished else { return }
        if descriptor >= 0, descriptor != LibC.standardOutput { LibC.close(descriptor) }
        if let temporary { LibC.remove(temporary) }
    }

    /// Writes `chunk`; a failure is remembered and reported by ``finish()``.
    mutating func write(_ chunk: UnsafeRawBufferPointer) {
        guard failure == 0, let start = chunk.baseAddress, !chunk.isEmpty else { return }
        if descriptor < 0 {
            open()
            guard failure == 0 else { return }
        }
        failure = writeAll(UnsafeRawBufferPointer(start: start, count: chunk.count), to: descriptor)
    }

    /// Opens standard output, the new file beside `path`, or `path` itself (see the type's comment).
    private mutating func open() {
        guard let path else {
            descriptor = LibC.standardOutput
            return
        }
        if let (replaced, mode) = Self.replaceableFile(path),
           let made = LibC.makeUniqueFile(template: Self.temporaryName(beside: replaced)) {
            // mkstemp makes the file 0600; give it what the replaced file had, or what a
            // new file gets (0666 less the umask).
            LibC.setPermissions(made.descriptor, mode)
            descriptor = made.descriptor
            target = replaced
            temporary = made.path
            return
        }
        descriptor = LibC.openForWriting(path)
        if descriptor < 0 { failure = LibC.lastError }
    }

    /// The file a new one may be renamed over for `path` (the file a symbolic link names), and
    /// the mode to give it; nil when `path` is to be written in place.
    private static func replaceableFile(_ path: String) -> (path: String, mode: UInt32)? {
        guard var status = LibC.linkStatus(ofPath: path) else {
            // No file yet (or no way to tell): a new one, made beside it.
            guard LibC.lastError == LibC.noSuchFile else { return nil }
            return (path, 0o666 & ~LibC.fileCreationMask())
        }
        var resolved = path
        if status.kind == .symbolicLink {
            guard let real = LibC.resolvedPath(path), let target = LibC.status(ofPath: real) else { return nil }
            resolved = real
            status = target
        }
        guard status.kind == .regular, status.linkCount == 1, status.ownerID == LibC.effectiveUserID(),
              LibC.isWritable(resolved) else { return nil }
        return (resolved, status.permissions)
    }

    /// `mkstemp`'s template for a hidden file in the directory of `path`.
    private static func temporaryName(beside path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return ".\(path).keyedarchive-XXXXXX" }
        return "\(path[...slash]).\(path[path.index(after: slash)...]).keyedarchive-XXXXXX"
    }

    /// Finishes the output (an empty one still creates the file): synced, closed, and renamed
    /// over `-o`'s file; throws the first failure, and then leaves that file as it was.
    consuming func finish() throws(InputError) {
        if descriptor < 0, failure == 0, path != nil { open() }
        if descriptor >= 0, descriptor != LibC.standardOutput {
            if failure == 0 { failure = LibC.sync(descriptor) }
            let closing = LibC.close(descriptor)
            if closing != 0, failure == 0, closing != LibC.interrupted { failure = closing }
            descriptor = -1
        }
        if failure == 0, let temporary, let target { failure = LibC.rename(temporary, to: target) }
        if failure == 0 { finished = true }
        guard failure != 0 else { return }
        throw InputError(message: "\(path ?? "standard output"): cannot write: \(LibC.describe(failure))")
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
