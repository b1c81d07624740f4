// libFuzzer target: the XML plist reader, then everything a caller may do with what it
// returns. Built by FuzzTesting/run.sh with FuzzSupport.swift and the PropertyList sources.
//
// For every input:
//   - the reader fails with an error located by line and column, or succeeds; the codec agrees
//     with it whenever it recognises the input as XML;
// and for every input it accepts:
//   - the XML writer (same DOCTYPE) writes bytes that read back as the value (up to what XML
//     cannot keep, FuzzXMLImage) and writing those again gives the same bytes;
//   - value → binary → value is exact (binary holds everything XML can);
//   - the JSON renderer writes strict JSON;
// and short printable inputs are read as <real>, <integer> and <date> text and compared with
// strtod, plain arithmetic and a calendar computation (FuzzScalarText).
// Any crash, sanitizer report, leak, timeout, out-of-memory or failed check is a finding
// (Docs/Development/Fuzzing.md; inputs kept in Fixtures/fuzz-findings/).

@_cdecl("LLVMFuzzerTestOneInput")
public func xmlPlistFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let options = FuzzOptions.reading

    // Short printable inputs are also read as the text of <real>, <integer> and <date> and
    // compared with independent oracles.
    if let text = FuzzScalarText.text(bytes) { FuzzScalarText.check(text) }

    let result = Result { () throws(PropertyListError) in try XMLPropertyListReader.read(bytes, options: options) }
    if PropertyListCodec.detectFormat(bytes) == .xml {
        let decoded = Result { () throws(PropertyListError) in try PropertyListCodec.decode(bytes, options: options) }
        switch (decoded, result) {
        case (.success(let a), .success(let b)) where a == b.value: break
        case (.failure(let a), .failure(let b)) where a == b: break
        default: fuzzFinding("PropertyListCodec.decode and XMLPropertyListReader.read disagree: \(decoded) vs \(result)")
        }
    }
    let document: XMLPropertyListDocument
    switch result {
    case .failure(let error):
        FuzzChecks.checkLocation(error, binary: false, inputCount: size, "XMLPropertyListReader.read")
        return 0
    case .success(let read):
        document = read
    }
    _ = FuzzChecks.checkXMLRoundTrip(document.value, doctype: document.doctype, "XML input")
    FuzzChecks.checkBinaryValueRoundTrip(document.value, "XML input")
    FuzzChecks.checkJSON(document.value)
    return 0
}
