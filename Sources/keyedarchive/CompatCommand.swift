import KeyedArchive
import PropertyList

/// `keyedarchive compat --against OLD NEW`: which changes between two versions' archives (or
/// schema files) break which direction (Docs/Compatibility.md). Exit 0 compatible under the
/// mode, 1 breaking, 2 trouble (an unreadable input, a wrong command line).
struct CompatCommand: ToolCommand {
    static let name = "compat"
    static let synopsis = "compat --against OLD NEW [--mode backward|forward|full] [--transitive] [--ignore RULE|CLASS|CLASS.KEY]... [--decisions FILE]\n" +
        "                        [--json | --format text|json|junit|github]   which changes break old readers or new ones;\n" +
        "                        exit 0 compatible, 1 breaking, 2 trouble"

    enum Format: String { case text, json, junit, github }

    var oldPaths: [String]
    var newPath: String
    var mode: ArchiveCompatibility.Mode
    var transitive: Bool
    var ignoring: [String]
    var decisionsPath: String?
    var format: Format

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, valued: ["--mode", "--format", "--decisions"], flags: ["--transitive", "--json"], repeating: ["--against", "--ignore"])
        transitive = parsed.flags.contains("--transitive")
        let against = parsed.repeatedOptions["--against"] ?? []
        guard let new = parsed.positionals.last else {
            throw UsageError(message: "expected NEW: a schema file, an archive or a folder of archives")
        }
        newPath = new
        if transitive {
            oldPaths = against + parsed.positionals.dropLast()
            guard !oldPaths.isEmpty else {
                throw UsageError(message: "--transitive needs the old versions: --transitive OLD1 OLD2 … NEW (or --against OLD for each)")
            }
        } else {
            guard parsed.positionals.count == 1 else {
                throw UsageError(message: "expected one NEW after --against OLD, got \(parsed.positionals.count) paths (several old versions need --transitive)")
            }
            guard against.count == 1 else {
                throw UsageError(message: against.isEmpty ? "expected --against OLD: the version to compare with"
                                                          : "--against was given \(against.count) times: check against several versions with --transitive")
            }
            oldPaths = against
        }
        if let text = parsed.options["--mode"] {
            guard let value = ArchiveCompatibility.Mode(rawValue: text) else {
                throw UsageError(message: "--mode must be backward, forward or full, not '\(text)'")
            }
            mode = value
        } else {
            mode = .full
        }
        if let text = parsed.options["--format"] {
            guard let value = Format(rawValue: text) else {
                throw UsageError(message: "--format must be text, json, junit or github, not '\(text)'")
            }
            guard !parsed.flags.contains("--json") || value == .json else {
                throw UsageError(message: "--json and --format \(text) exclude each other")
            }
            format = value
        } else {
            format = parsed.flags.contains("--json") ? .json : .text
        }
        ignoring = parsed.repeatedOptions["--ignore"] ?? []
        decisionsPath = parsed.options["--decisions"]
        guard (oldPaths + [newPath]).filter({ $0 == "-" }).count <= 1 else {
            throw UsageError(message: "standard input (-) can be read only once")
        }
    }

    func run() throws -> Int32 {
        let new: ArchiveSchemaSource
        var olds: [ArchiveSchemaSource] = []
        do {
            new = try Self.load(newPath)
            // A side given twice (a folder checked against itself) is read once.
            for path in oldPaths { olds.append(path == newPath && path != "-" ? new : try Self.load(path)) }
        } catch {
            // Trouble is 2 here, as `diff` has it: 1 means "breaking".
            writeStandardError("keyedarchive compat: error: \(oneLine(error.message))\n")
            return ExitStatus.usage
        }
        var noted: Set<String> = []
        for source in [new] + olds where !source.skippedFiles.isEmpty && noted.insert(source.name).inserted {
            let names = source.skippedFiles.prefix(3).map { String($0.dropFirst(source.name.count + 1)) }
            writeStandardError("keyedarchive compat: note: passed over \(source.skippedFiles.count) file\(source.skippedFiles.count == 1 ? "" : "s") in \(oneLine(source.name)) that \(source.skippedFiles.count == 1 ? "is" : "are") neither an archive nor a schema file (\(oneLine(names.joined(separator: ", ")))\(source.skippedFiles.count > 3 ? ", …" : ""))\n")
        }
        // The decisions beside the old side (a contract's folder), or the file named.
        var decisions = ArchiveCompatibilityDecisions()
        if let path = decisionsPath ?? oldPaths.lazy.compactMap({ ArchiveCompatibilityDecisions.file(besideOldSide: $0) }).first {
            do {
                decisions = try ArchiveCompatibilityDecisions(contentsOfFile: path)
            } catch {
                writeStandardError("keyedarchive compat: error: \(oneLine(error.description))\n")
                return ExitStatus.usage
            }
            writeStandardError("keyedarchive compat: note: read \(decisions.decisions.count) decision\(decisions.decisions.count == 1 ? "" : "s") from \(oneLine(path))\n")
        }
        let report = ArchiveCompatibilityReport(olds.map { ArchiveCompatibility(old: $0, new: new) }, mode: mode, transitive: transitive, ignoring: ignoring,
                                                decisions: decisions)
        if format != .text {
            for unknown in report.unknownDecisions {
                writeStandardError("keyedarchive compat: note: decision \(oneLine(unknown.pattern)) names nothing either side has\(unknown.nearest.map { " (nearest: \(oneLine($0)))" } ?? "")\n")
            }
        }
        // An --ignore that matches nothing is trouble (2): left in a script, it would hide a
        // later break on what it names.
        guard report.unmatchedIgnores.isEmpty else {
            for unmatched in report.unmatchedIgnores {
                writeStandardError("keyedarchive compat: error: --ignore: \(oneLine(unmatched.description))\n")
            }
            return ExitStatus.usage
        }
        let text: String
        switch format {
        case .text: text = report.textDescription
        case .json: text = report.jsonDescription
        case .junit: text = report.junitDescription
        case .github: text = report.githubDescription
        }
        writeStandardOutput(Array(text.utf8))
        return report.isCompatible ? ExitStatus.success : ExitStatus.failure
    }

    static func load(_ path: String) throws(InputError) -> ArchiveSchemaSource {
        do {
            if path == "-" {
                return try ArchiveSchemaSource(name: "-", files: [("-", try readInput("-", acceptingJSON: true))])
            }
            return try ArchiveSchemaSource.load(path: path)
        } catch let error as ArchiveSchemaSourceError {
            throw InputError(message: error.description)
        } catch let error as InputError {
            throw error
        } catch {
            throw InputError(message: "\(path): \(error)")
        }
    }

    static var help: String {
        var text = """
            usage: keyedarchive compat --against OLD NEW [options]
                   keyedarchive compat --transitive OLD1 OLD2 … NEW [options]

            Compares the schema of NEW with that of OLD — each a schema file (schema --json), a keyed
            archive, or a folder of archives and schema files (read recursively) — and reports every
            change once, as a named rule with the direction it breaks:
              backward  readers of the new version, archives of the old (can we open what users have?)
              forward   readers of the old version, archives of the new (can the app in users' hands
                        open what we write now?)
            A version is assumed to read the keys it writes; a key written only sometimes, or
            sometimes $null, is optional to its readers. Docs/Compatibility.md tells the rules.

            options:
              --against OLD     the version to compare with
              --mode MODE       what fails: backward, forward or full (both; the default)
              --transitive      check NEW against every old version listed, not one
              --ignore NAME     leave out changes a team has accepted: a rule name, a class, or
                                CLASS.KEY ($top.KEY for a top-level key); repeatable. One that
                                matches no change is an error (2), naming the nearest real name
              --decisions FILE  changes accepted on purpose, each with its reason (Docs/Compatibility.md,
                                Decisions); by default compat-decisions.txt in the folder that
                                holds OLD (beside the contracts), when there is one. Accepted
                                changes do not fail; each decision is listed once, with what it
                                covered
              --json            the report as JSON (same as --format json)
              --format F        text (default), json, junit (JUnit XML for CI test reports) or
                                github (GitHub Actions ::error/::warning annotations)

            exit status: 0 compatible under the mode, 1 breaking, 2 trouble (an unreadable input, a
            wrong command line, or an --ignore that matches no change).

            rules:

            """
        let width = ArchiveCompatibilityRule.allCases.map(\.rawValue.count).max() ?? 0
        for rule in ArchiveCompatibilityRule.allCases {
            text += "  \(rule.rawValue)\(String(repeating: " ", count: width - rule.rawValue.count))  \(rule.summary)\n"
        }
        text += """

            examples:
              keyedarchive compat --against Fixtures/compat/story/v1 Fixtures/compat/story/v2
              keyedarchive schema Fixtures/compat/story/v1/*.plist --json > v1.schema.json   (a contract)
              keyedarchive compat --against v1.schema.json Fixtures/compat/story/v2 --mode forward --format github

            """
        return text
    }
}
