//! The `wafer` binary: [`wafer_cli::main`] with an allocator that reports running out
//! of memory as one line.

#[global_allocator]
static ALLOCATOR: wafer_cli::oom::OneLineOnOom = wafer_cli::oom::OneLineOnOom;

fn main() {
    std::process::exit(wafer_cli::main(std::env::args_os()));
}
