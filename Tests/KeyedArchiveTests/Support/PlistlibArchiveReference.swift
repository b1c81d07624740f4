import Foundation
import PropertyList
@testable import KeyedArchive

/// Python's `plistlib` as an independent reader of keyed archives: a short script prints each
/// archive's `$top` and `$objects` in a canonical text form, and ``canonicalText(_:)`` prints
/// our generic view in the same form. Equal texts mean both readers saw the same graph.
enum PlistlibArchiveReference {
    static let script = #"""
import plistlib, struct, sys

def enc(v):
    if isinstance(v, bool): return 'b:%d' % v
    if isinstance(v, int): return 'i:%d' % v
    if isinstance(v, float): return 'r:' + struct.pack('>d', v).hex()
    if isinstance(v, str): return 's:' + v.encode('utf-8', 'surrogatepass').hex()
    if isinstance(v, bytes): return 'd:' + v.hex()
    if isinstance(v, plistlib.UID): return 'u:%d' % v.data
    if isinstance(v, list): return '[' + ','.join(enc(x) for x in v) + ']'
    # plistlib's XML reader leaves {CF$UID: n} as a dictionary; Core Foundation reads it as a UID.
    if isinstance(v, dict) and list(v.keys()) == ['CF$UID'] and isinstance(v['CF$UID'], int) and not isinstance(v['CF$UID'], bool):
        return 'u:%d' % v['CF$UID']
    if isinstance(v, dict): return '{' + ','.join(k.encode('utf-8').hex() + '=' + enc(x) for k, x in v.items()) + '}'
    return 't'

def obj(v):
    if isinstance(v, dict) and '$classname' in v and '$class' not in v:
        hints = v.get('$classhints')
        return 'C:' + enc(v['$classname']) + ':' + enc(v.get('$classes')) + ':' + (enc(hints) if hints is not None else '-')
    return enc(v)

for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        try:
            p = plistlib.load(f)
        except Exception as e:
            print('%s\tERROR %s' % (path, type(e).__name__))
            continue
    lines = ['top ' + enc(p['$top'])] + ['%d %s' % (i, obj(o)) for i, o in enumerate(p['$objects'])]
    print(path + '\t' + ' | '.join(lines))
"""#

    static func value(_ value: PropertyListValue) -> String {
        switch value {
        case .bool(let flag): return "b:\(flag ? 1 : 0)"
        case .integer(let integer): return "i:\(integer)"
        case .real(let real): return "r:" + hex(withUnsafeBytes(of: real.doubleValue.bitPattern.bigEndian, Array.init))
        case .string(let string): return "s:" + hex(Array(string.utf8))
        case .data(let bytes): return "d:" + hex(bytes)
        case .uid(let uid): return "u:\(uid.value)"
        case .date: return "t"
        case .array(let elements), .set(let elements): return "[" + elements.map(Self.value).joined(separator: ",") + "]"
        case .dictionary(let dictionary):
            return "{" + dictionary.entries.map { hex(Array($0.key.utf8)) + "=" + Self.value($0.value) }.joined(separator: ",") + "}"
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Our generic view in the script's form.
    static func canonicalText(_ graph: ArchiveGraph) -> String {
        var top = PropertyListDictionary()
        for entry in graph.top { top.append(key: entry.key, value: entry.value) }
        var lines = ["top " + value(.dictionary(top))]
        for (index, object) in graph.objects.enumerated() {
            let text: String
            switch object {
            case .null: text = value(.string("$null"))
            case .string(let string): text = value(.string(string))
            case .integer(let integer): text = value(.integer(integer))
            case .real(let real): text = value(.real(real))
            case .bool(let flag): text = value(.bool(flag))
            case .data(let bytes): text = value(.data(bytes))
            case .date(let date): text = value(.date(date))
            case .instance(let instance): text = value(.dictionary(instance.storage))
            case .classDescriptor(let descriptor):
                // plistlib's side writes a missing `$classes` as it writes any other absent value.
                text = "C:" + value(.string(descriptor.name)) + ":" + (descriptor.storesClasses ? value(.array(descriptor.classes.map(PropertyListValue.string))) : "t")
                    + ":" + (descriptor.hints.map { value(.array($0.map(PropertyListValue.string))) } ?? "-")
            case .other(let plain): text = value(plain)
            }
            lines.append("\(index) \(text)")
        }
        return lines.joined(separator: " | ")
    }

    /// Runs the script over files; returns path → canonical text (or "ERROR …").
    static func read(_ paths: [String]) throws -> [String: String]? {
        try runPython(script, over: paths)
    }

    /// Runs a Python `script` over `paths`, each printing `PATH<TAB>TEXT`; path → text, or nil
    /// when there is no python3.
    static func runPython(_ script: String, over paths: [String]) throws -> [String: String]? {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
            ?? ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map({ "\($0)/python3" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        let scriptURL = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-plistlib-\(UUID().uuidString).py")
        try Data(script.utf8).write(to: scriptURL)
        defer { try? FileManager.default.removeItem(at: scriptURL) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [scriptURL.path] + paths
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var result: [String: String] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
        }
        return result
    }
}
