// libFuzzer target: the binary plist readers, then everything a caller may do with what they
// return. Built by FuzzTesting/run.sh with FuzzSupport.swift and the PropertyList sources.
//
// For every input:
//   - `read` (object table) and `readValue` (value tree) either fail with a located error, or
//     succeed; `read` is the stricter (it checks unreachable objects too), so whatever it
//     accepts `readValue` accepts as the same value; the codec agrees with `readValue`;
// and for every input `read` accepts:
//   - the faithful writer (`.matching(document)`) writes bytes that read back as the same
//     value, and writing those again gives the same bytes;
//   - the value writer (both paths) round-trips the value exactly;
//   - the XML writer writes what XML can hold and it reads back as that (FuzzXMLImage);
//   - the JSON renderer writes strict JSON.
// Any crash, sanitizer report, leak, timeout, out-of-memory or failed check is a finding
// (Docs/Development/Fuzzing.md; inputs kept in Fixtures/fuzz-findings/).

@_cdecl("LLVMFuzzerTestOneInput")
public func binaryPlistFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let options = FuzzOptions.reading

    let fast = Result { () throws(PropertyListError) in try BinaryPropertyListReader.readValue(bytes, options: options) }
    if case .failure(let error) = fast { FuzzChecks.checkLocation(error, binary: true, inputCount: size, "readValue") }
    if PropertyListCodec.detectFormat(bytes) == .binary {
        let decoded = Result { () throws(PropertyListError) in try PropertyListCodec.decode(bytes, options: options) }
        switch (decoded, fast) {
        case (.success(let a), .success(let b)) where a == b: break
        case (.failure(let a), .failure(let b)) where a == b: break
        default: fuzzFinding("PropertyListCodec.decode and readValue disagree: \(decoded) vs \(fast)")
        }
    }

    let document: BinaryPropertyListDocument
    switch Result(catching: { () throws(PropertyListError) in try BinaryPropertyListReader.read(bytes, options: options) }) {
    case .failure(let error):
        FuzzChecks.checkLocation(error, binary: true, inputCount: size, "read")
        return 0
    case .success(let read):
        document = read
    }
    let value: PropertyListValue
    switch Result(catching: { () throws(PropertyListError) in try document.value(options: options) }) {
    case .failure(let error): fuzzFinding("a document that read cleanly has no value: \(error)")
    case .success(let built): value = built
    }
    guard case .success(let fastValue) = fast, fastValue == value else {
        fuzzFinding("readValue disagrees with read().value(): \(fast)")
    }

    // Faithful rewrite: same value, and a fixed point after one round.
    let writer = BinaryPropertyListWriter.matching(document)
    switch Result(catching: { () throws(PropertyListError) in try writer.write(document) }) {
    case .failure(let error):
        fuzzFinding("the faithful writer refused a document the reader accepted: \(error)")
    case .success(let faithful):
        guard let again = try? BinaryPropertyListReader.read(faithful, options: options) else {
            fuzzFinding("faithful rewrite does not read back")
        }
        guard (try? again.value(options: options)) == value else { fuzzFinding("faithful rewrite changed the value") }
        guard (try? BinaryPropertyListWriter.matching(again).write(again)) == faithful else {
            fuzzFinding("faithful rewrite is not a fixed point")
        }
    }

    FuzzChecks.checkBinaryValueRoundTrip(value, "binary input")
    _ = FuzzChecks.checkXMLRoundTrip(value, doctype: .modern, "binary input")
    FuzzChecks.checkJSON(value)
    return 0
}
