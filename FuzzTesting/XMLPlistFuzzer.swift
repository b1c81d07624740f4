// libFuzzer target: the XML plist reader, then rewrite and re-read.

@_cdecl("LLVMFuzzerTestOneInput")
public func xmlPlistFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let document = try? XMLPropertyListReader.read(bytes) else { return 0 }
    _ = try? PropertyListJSONRenderer.render(document.value)
    if let written = try? XMLPropertyListWriter(doctype: document.doctype).write(document.value) {
        guard let again = try? XMLPropertyListReader.read(written) else {
            fatalError("our own XML output does not read back")
        }
        // Writing what we read back gives the same bytes: XML output is canonical.
        guard let rewritten = try? XMLPropertyListWriter(doctype: again.doctype).write(again.value), rewritten == written else {
            fatalError("XML rewrite is not stable")
        }
    }
    if let binary = try? BinaryPropertyListWriter().write(document.value) {
        guard let back = try? BinaryPropertyListReader.readValue(binary), back == document.value else {
            fatalError("binary rewrite of an XML value changed it")
        }
    }
    return 0
}
