// What `keyedarchive --version` and `keyedarchive COMMAND --help` print. Each command's help says
// what it does, its arguments and options, and an example to copy.

extension KeyedArchiveTool {
    /// The package's version, printed by `--version` (one constant, in the library).
    static let version = KeyedArchivePackage.version

    static var versionText: String {
        "keyedarchive \(version) (NSKeyedArchiver archives version 100000; bplist00 and XML property lists)\n"
    }

    /// The lines after the command list in the top-level help.
    static let usageFooter = """

        keyedarchive COMMAND --help     what a command does, its options and an example
        keyedarchive --version          the tool's version
        FILE is a path, or - for standard input; the commands that read an archive (dump, json,
        validate, diff, schema, graph) take its canonical JSON (what plist prints) too. Exit status:
        0 success, 1 faulty or refused input, 2 a wrong command line (diff: 1 different, 2 trouble).
        Documentation: the KeyedArchive, KeyedArchiveTesting and PropertyList DocC catalogs
        (articles "Getting started", "Fixture tests", "The security model", "The archive
        format"), and the package's README and Docs/ folder.

        """

    /// The help for `name`, or nil when no command has that name.
    static func help(forCommand name: String) -> String? {
        commands.first { $0.name == name }?.help
    }
}

extension PlistCommand {
    static var help: String {
        """
        usage: keyedarchive plist FILE

        Prints any property list, binary (bplist00) or XML, as canonical JSON: dictionaries keep
        their keys in file order, and dates, data, UIDs and reals that JSON cannot hold exactly are
        tagged objects (Docs/PlistJSON.md). Works on keyed archives too, showing them as the
        property lists they are; for their object graph use dump or json.

        arguments:
          FILE          a binary or XML property list, or - for standard input

        example:
          keyedarchive plist Fixtures/fleet.plist | jq '."$objects" | length'

        """
    }
}

extension ConvertCommand {
    static var help: String {
        """
        usage: keyedarchive convert FILE --to binary|xml [-o OUT] [--force]

        Rewrites a property list in the other format (or its own) in Core Foundation's layout: a
        file already laid out that way comes out byte-identical. XML keeps less than binary
        (fractions of a second, -0, 32-bit reals, a leading U+FEFF; Docs/PropertyLists.md): the
        first value lost is named in a warning, and what XML cannot hold at all is refused.

        options:
          --to binary|xml   the format to write (required)
          -o OUT            write to the file OUT (- for standard output); default: standard output.
                            OUT is replaced only once the whole output is written (a refused input
                            or a failed write leaves it as it was)
          --force           write binary to standard output even when it is a terminal (refused
                            otherwise, as plutil and gzip refuse it)

        examples:
          keyedarchive convert Fixtures/fleet.plist --to xml
          keyedarchive convert settings.xml --to binary -o settings.plist

        """
    }
}

extension DumpCommand {
    static var help: String {
        """
        usage: keyedarchive dump FILE [--raw]

        Prints a keyed archive's object graph as an indented tree: the classes first, then every
        object from $top down, in full where first reached and labelled #UID; a later reference to
        it, or one back into an object still being printed (a cycle), is -> #UID. Output stays
        linear in the archive's size (Docs/KeyedArchiveFormat.md). Foundation's value objects are
        shown as their values (NSDate as an ISO-8601 date, NSUUID as its UUID, NSURL resolved,
        NSDictionary as key: value lines, index sets, NSValue geometry, NSMeasurement with its
        unit); one that does not read as its value is shown as stored with a note. For a plain
        property list use plist.

        arguments:
          FILE          a binary or XML keyed archive, its canonical JSON (Docs/PlistJSON.md),
                        or - for standard input
        options:
          --raw         show every object's fields as stored, Foundation's included

        example:
          keyedarchive dump Fixtures/fleet.plist

        """
    }
}

extension JSONCommand {
    static var help: String {
        """
        usage: keyedarchive json FILE [--raw] [--plain-numbers]

        Prints a keyed archive's object graph as JSON: each object in full where first reached,
        with "$id" its UID and "$class" its class, later references as {"$ref": UID}; scalars as
        plist prints them (Docs/KeyedArchiveFormat.md). Foundation's value objects are shown as
        values, as dump shows them ({"$uuid": "…"}, {"$url": "…"}, an NSDictionary's "$dict").

        arguments:
          FILE          a binary or XML keyed archive, its canonical JSON (Docs/PlistJSON.md),
                        or - for standard input
        options:
          --raw         show every object's fields as stored, Foundation's included
          --plain-numbers   reals as plain JSON numbers ({"$real": 2.5} becomes 2.5) where finite

        example:
          keyedarchive json Fixtures/fleet.plist --plain-numbers | jq '."$top".root'

        """
    }
}

extension ValidateCommand {
    static var help: String {
        """
        usage: keyedarchive validate FILE --allow NAME[,NAME…] [--strict] [--primitives KIND,…|none]

        Checks every object reachable from $top against an allowlist of class names, as an
        ArchiveRegistry would before decoding: prints one line per refused object (class chain,
        key path, UID, the --allow that would admit it) and exits 0 only when all are admitted.
        Foundation's value classes (NSString, NSArray, NSDictionary, NSDate, NSURL, NSUUID,
        NSValue, …) are admitted as ArchiveRegistry() admits them, unless --strict.

        arguments:
          FILE          a binary or XML keyed archive, its canonical JSON, or - for standard input
        options:
          --allow NAMES     your classes to admit, comma-separated (--allow '' for none)
          --strict          admit only the classes listed, Foundation's included
          --primitives KINDS  the plain values admitted: strings, integers, reals, booleans,
                            data, dates (comma-separated), or none; default all

        examples:
          keyedarchive validate Fixtures/fleet.plist --allow Pilot,Airplane,PoweredAirplane,Glider
          keyedarchive validate Fixtures/fleet.plist --strict --allow Pilot,Airplane,NSArray

        """
    }
}

extension DiffCommand {
    static var help: String {
        """
        usage: keyedarchive diff A B [--values] [--layout] [--json] [--max N] [--html [-o OUT] [--force]]

        Compares two keyed archives' object graphs (binary, XML or canonical JSON, any mix) and
        prints one line per difference with its key path: value and type changes, fields only in
        A or B, class and class-chain changes, counts, sharing. Objects are matched by where they
        hang in the graph, never by UID, so a renumbered or re-laid-out copy is equal; arrays
        are compared in index order. Two plain property lists are compared value by value from
        root. Exit status: 0 equal, 1 different, 2 trouble (as diff(1)).

        arguments:
          A, B          archives: binary or XML property lists or their canonical JSON
                        (Docs/PlistJSON.md); one of them may be - for standard input
        options:
          --values      values only: ignore sharing and $classes chains beyond $classname
          --layout      also say why the bytes differ: format, object numbering, key order,
                        uniquing, object reuse and object order in the property list, offset
                        sizes, Core Foundation's layout
          --json        the report as JSON: {"equal", "differences": [{"kind", "path", "a",
                        "b"}], "omitted", "incomplete"} (and "layout" with --layout)
          --max N       at most N differences (default 1,000), then a count of the rest
          --html        instead of the lines, one self-contained HTML page: both graphs side by
                        side (as keyedarchive graph --html shows one), each difference listed
                        and marked at its key path on both sides; -o OUT writes it to OUT,
                        replacing only a page keyedarchive made unless --force

        examples:
          keyedarchive diff Fixtures/fleet.plist Fixtures/fleet.xml
          keyedarchive diff --layout app.plist ours.plist
          keyedarchive diff old.plist new.plist --html -o changes.html
          keyedarchive plist app.plist | keyedarchive diff --values - ours.json

        """
    }
}

extension GraphCommand {
    static var help: String {
        """
        usage: keyedarchive graph FILE --dot|--html [-o OUT] [--force] [--start PATH] [--depth N]
                                  [--max-nodes N] [--raw]

        Shows a keyed archive's object graph from $top as a picture or a page, built from the
        walk dump makes (values as dump shows them; every text of the archive escaped).
          --dot   Graphviz's DOT: one box per object or collection (#UID and class, inline
                  fields as dump prints them), references as edges labelled with their key; a
                  shared object is one box with several incoming edges, a reference back into an
                  object that contains it (a cycle) is dashed. Draw it with dot -Tsvg.
          --html  one self-contained HTML page (no network): the tree from $top, expanded on
                  demand; a reference to an object shown elsewhere is a link that jumps to it,
                  back-references are marked, shared objects say how often they are referred
                  to; a search over class names, keys and values, a legend of classes with
                  counts, and the selected node's key path.
        An existing OUT is replaced only when this command made it (or with --force).

        arguments:
          FILE          a binary or XML keyed archive, its canonical JSON, or - for standard input
        options:
          -o OUT        write to OUT instead of standard output
          --force       replace OUT even when it is not a file this command made
          --start PATH  begin at the value at a key path (root.airplanes[1]); the page opens on it
          --depth N     --dot: boxes at most N levels below the start
          --max-nodes N --dot: at most N boxes (default 2,000); --html: at most N nodes in the
                        page (default 500,000; past it, and past 64 MiB of text, the page says
                        where it stops)
          --raw         show Foundation's objects as stored, as dump --raw does

        examples:
          keyedarchive graph Fixtures/fleet.plist --dot | dot -Tsvg -o fleet.svg
          keyedarchive graph Fixtures/fleet.plist --html -o fleet.html

        """
    }
}

extension SchemaCommand {
    static var help: String {
        """
        usage: keyedarchive schema FILE... [--json | --swift [--name N] [--public]]

        Infers the classes of one or many archives from what they store: each class with its
        superclass chain, its fields with their kinds, how often each is present, and which
        fields hold collections of which classes (Docs/Schema.md). With --json, writes the
        schema file a team commits as its compatibility contract (Docs/Compatibility.md); schema
        files given as inputs are merged in, their counts added. With --swift, writes Swift
        models (KeyedArchivable types and a registry) that decode those archives.

        arguments:
          FILE...       archives: binary or XML property lists or their canonical JSON, and
                        schema files (schema --json); - (once) for standard input
        options:
          --json        the schema file (JSON, one key a line, the same bytes on every run)
          --swift       Swift source of models for the classes found
          --name N      with --swift: the enum the models are nested in (default ArchiveSchema)
          --public      with --swift: public models, initialisers and registry, for a library target

        examples:
          keyedarchive schema Fixtures/fleet.plist
          keyedarchive schema Fixtures/compat/story/v1 --json > v1.schema.json
          keyedarchive schema app-v1.plist app-v2.plist --swift --public --name AppModels > Models.swift

        """
    }
}

import KeyedArchive
import PropertyList

/// Binary bytes on a terminal are noise at best and terminal commands at worst, so, as `plutil`
/// and `gzip` do, `convert --to binary` writes them to standard output only when it is not a
/// terminal, when asked with `-o -`, or with `--force`.
func refuseBinaryToTerminal(_ isBinary: Bool, outputPath: String?, force: Bool) throws(UsageError) {
    guard isBinary, outputPath == nil, !force, LibC.isTerminal(LibC.standardOutput) else { return }
    throw UsageError(message: "not writing a binary property list to a terminal: give -o OUT, -o - or --force, or redirect standard output")
}

/// For a `dump` or `json` of a property list that is not a keyed archive: the command that
/// reads it. Empty for any other fault.
func plainPropertyListHint(_ error: ArchiveError, bytes: [UInt8], path: String) -> String {
    guard error.code == .invalidArchiveHeader, let value = try? PropertyListCodec.decode(bytes) else { return "" }
    if case .dictionary(let root) = value, root["$archiver"] != nil { return "" }
    return " — it is a plain property list, not a keyed archive: keyedarchive plist \(path.hasPrefix("-") && path != "-" ? "./" : "")\(path) prints it"
}
