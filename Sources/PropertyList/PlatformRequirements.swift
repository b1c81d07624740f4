// The readers hold file offsets, object numbers and references in `Int` and compare them with
// 64-bit values a file can store: with a 32-bit `Int`, an 8-byte reference would be cut to a
// small, valid-looking number, and the 4 GiB file check would trap. Rather than build a reader
// that is unsafe there, the package builds only where `Int` is 64 bits (Docs/Security.md).
#if !_pointerBitWidth(_64)
#error("PropertyList and KeyedArchive need a 64-bit platform: their readers rely on a 64-bit Int")
#endif
