// libFuzzer target: the binary plist reader, then everything a caller may do with what it
// returns (value tree, faithful rewrite, value rewrite, JSON). Any crash, leak, timeout or
// inconsistency found here is a bug; findings are kept in Fixtures/fuzz-findings/.

@_cdecl("LLVMFuzzerTestOneInput")
public func binaryPlistFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var options = PropertyListReadingOptions()
    // Small budgets keep each input fast; the limits themselves are what is being exercised.
    options.maximumExpandedValueCount = 1 << 20
    options.maximumObjectCount = 1 << 20
    guard let document = try? BinaryPropertyListReader.read(bytes, options: options) else {
        // readValue checks only what is reachable from the top object (all a value can hold);
        // read also checks unreachable table entries, so it may reject more. Both must be safe.
        _ = try? BinaryPropertyListReader.readValue(bytes, options: options)
        return 0
    }
    guard let value = try? document.value(options: options) else {
        fatalError("a document that read cleanly has no value")
    }
    guard let fast = try? BinaryPropertyListReader.readValue(bytes, options: options), fast == value else {
        fatalError("readValue disagrees with read().value()")
    }
    if let faithful = try? BinaryPropertyListWriter.matching(document).write(document) {
        guard let again = try? BinaryPropertyListReader.readValue(faithful, options: options), again == value else {
            fatalError("faithful rewrite changed the value")
        }
    }
    if let rewritten = try? BinaryPropertyListWriter().write(value) {
        guard let again = try? BinaryPropertyListReader.readValue(rewritten, options: options), again == value else {
            fatalError("value rewrite changed the value")
        }
    }
    _ = try? PropertyListJSONRenderer.render(value)
    _ = try? XMLPropertyListWriter().write(value)
    return 0
}
