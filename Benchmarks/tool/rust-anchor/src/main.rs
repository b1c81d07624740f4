// plist-anchor IN --to binary|xml OUT: what `keyedarchive convert` does, done with the Rust
// `plist` crate as a Rust user would for speed: the whole file read into memory first (the
// crate's own `from_file` seeks through a BufReader, one system call per object), then
// `to_file_binary`/`to_file_xml`, which write through a BufWriter.
use std::io::Cursor;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 || args[2] != "--to" {
        eprintln!("usage: plist-anchor IN --to binary|xml OUT");
        std::process::exit(2);
    }
    let bytes = std::fs::read(&args[1]).unwrap_or_else(|e| { eprintln!("read: {e}"); std::process::exit(1) });
    let value = plist::Value::from_reader(Cursor::new(bytes)).unwrap_or_else(|e| { eprintln!("parse: {e}"); std::process::exit(1) });
    let written = match args[3].as_str() {
        "binary" => value.to_file_binary(&args[4]),
        "xml" => value.to_file_xml(&args[4]),
        other => { eprintln!("unknown format {other}"); std::process::exit(2) }
    };
    written.unwrap_or_else(|e| { eprintln!("write: {e}"); std::process::exit(1) });
}
