import KeyedArchive

/// `keyedarchive validate FILE --allow A,B,…`: would a registry admitting exactly these
/// classes decode every object of this archive? Prints one line per refusal (class, its
/// `$classes` chain, key path, UID and what would admit it) on standard output, one summary
/// line on standard error, and exits 0 only when there is none.
struct ValidateCommand: ToolCommand {
    static let name = "validate"
    static let synopsis = "validate FILE --allow NAME[,NAME…] [--strict] [--primitives KIND,…|none]\n" +
        "                        check every object's class against an allowlist, Foundation's value\n" +
        "                        classes admitted unless --strict (exit 0: all admitted)"

    var path: String
    var allowlist: ArchiveClassAllowlist
    /// The names given to --allow, in their order.
    var allowedNames: [String]

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: ["--allow", "--primitives"], flags: ["--strict"])
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "expected exactly one FILE (or - for standard input), got \(parsed.positionals.count)")
        }
        guard let allowed = parsed.options["--allow"] else {
            throw UsageError(message: "--allow NAME[,NAME…] is required (an empty list admits only plain values: --allow '')")
        }
        // "A, B" as well as "A,B": no class name holds a space.
        let names = allowed.split(separator: ",").map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            .filter { !$0.isEmpty }
        var primitives = ArchivePrimitivePolicy.all
        if let kinds = parsed.options["--primitives"] {
            primitives = []
            if kinds != "none" {
                for kind in kinds.split(separator: ",", omittingEmptySubsequences: true) {
                    guard let known = ArchivePrimitivePolicy.names.first(where: { $0.name == kind }) else {
                        let all = ArchivePrimitivePolicy.names.map(\.name).joined(separator: ", ")
                        throw UsageError(message: "unknown primitive kind '\(kind)' in --primitives (known: \(all), or none)")
                    }
                    primitives.insert(known.kind)
                }
            }
        }
        path = parsed.positionals[0]
        // As ArchiveRegistry() admits its fixed set of Foundation classes, so does the check, unless strict.
        let foundation = parsed.flags.contains("--strict") ? [] : FoundationClassSet.release0_9.classes.flatMap(\.defaultNames)
        allowlist = ArchiveClassAllowlist(classNames: names + foundation, primitives: primitives)
        allowedNames = names
    }

    func run() throws -> Int32 {
        let bytes = try readArchiveInput(path).bytes
        let graph: ArchiveGraph
        do {
            graph = try ArchiveGraph(bytes: bytes)
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
        let report = allowlist.check(graph)
        if report.admitsEverything {
            writeStandardOutput(Array("\(oneLine(path)): admitted: all \(report.checkedObjectCount) reachable objects\n".utf8))
            return ExitStatus.success
        }
        // The refusals are the command's output (stdout); standard error gets the one-line
        // verdict, as for every other failure of the tool.
        var text = ""
        for refusal in report.refusals {
            text += "refused: \(oneLine(refusal.description))\n"
        }
        if report.refusalCount > report.refusals.count {
            text += "… and \(report.refusalCount - report.refusals.count) more refusals\n"
        }
        writeStandardOutput(Array(text.utf8))
        var verdict = "keyedarchive validate: \(oneLine(path)): \(report.refusalCount) of \(report.checkedObjectCount) reachable objects refused"
        // One --allow to copy for every refused class (by `$classname`, which the allowlist
        // checks, including classes past the refusals listed) — offered only when every name is
        // a plain class name, which a shell takes as it is (an archive's names are its author's
        // choice), and when the line stays short enough to read.
        var admitted = allowedNames
        var known = Set(allowedNames)
        for name in report.refusedClassNames where known.insert(name).inserted {
            admitted.append(name)
            // Past the most a suggestion names, only the count matters.
            if admitted.count - allowedNames.count > Self.maximumSuggestedClasses { break }
        }
        let added = admitted.count - allowedNames.count
        if added > 0, added <= Self.maximumSuggestedClasses, admitted.allSatisfy(Self.isPlainClassName) {
            verdict += "; to admit every refused class: --allow \(admitted.joined(separator: ","))"
        } else if added > Self.maximumSuggestedClasses {
            verdict += "; \(report.refusedClassNames.count) distinct classes refused (too many to suggest one --allow)"
        }
        writeStandardError(verdict + "\n")
        return ExitStatus.failure
    }

    /// Most classes one suggested `--allow` line names.
    static let maximumSuggestedClasses = 100

    /// ASCII letters, digits, `_` and `.`: what Objective-C and module-qualified Swift class
    /// names use, and nothing a shell would read otherwise.
    static func isPlainClassName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == ".")
        }
    }
}
