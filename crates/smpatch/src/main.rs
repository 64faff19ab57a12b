//! The `smpatch` command-line tool; see `smpatch --help`.

fn main() {
    std::process::exit(smpatch::cli::main());
}
