//! The device of a study cell: its FTL behind the timed SSD model (crate wafer-ssd),
//! fed the after-cache requests by a synchronous replayer (`docs/experiments.md`,
//! "Elapsed time").
//!
//! Papers 000 and 001 measured elapsed time by replaying each after-cache trace on a
//! real card or SSD with `O_DIRECT`, one request at a time (paper 000: D. H. Kang,
//! C. Min, Y. I. Eom, "An Efficient Buffer Replacement Algorithm for NAND Flash Storage
//! Devices", IEEE MASCOTS 2014, Sec. IV-A). A cell does the same on the model: a
//! closed loop of one outstanding request, each issued when the one before completes,
//! so the elapsed time is the last completion. Every page pays the host link and its
//! flash operation with the garbage collection and merges it triggers, on the unit it
//! sits on; the pages of one request overlap on a device with several units. The sum
//! of flash latencies (the FTL's busy time) stays beside it as a second column.

use wafer_ftl::{AddressMap, AnyFtl, Ftl, FtlError, Mapper};
use wafer_ssd::{FtlFlash, Ssd, SsdConfig, SsdError};
use wafer_trace::{Op, Request};

/// Requests outstanding in a cell's replay (the papers' synchronous replayer).
pub const QUEUE_DEPTH: u32 = 1;

/// A cell's device: the aged FTL in the timed model, the address map onto it, and
/// the replay clock.
pub struct TimedDevice {
    ssd: Ssd<FtlFlash>,
    map: Mapper,
    page_size: u64,
    /// When the last request completed: the next one's arrival, and at the end the
    /// elapsed time of the replay.
    now: u64,
    /// The pieces submitted, in device addresses, where they are kept to be replayed
    /// ([`TimedDevice::recording`]).
    record: Option<Vec<Request>>,
}

impl TimedDevice {
    /// `ftl` (aged or erased) in the timed model with the defaults of
    /// [`SsdConfig`] (host link 10 us a page, no on-board cache) and a queue of
    /// [`QUEUE_DEPTH`]; `read_ns` is charged for reads of pages that hold no data.
    pub fn new(ftl: AnyFtl, read_ns: u64, map: AddressMap) -> Result<TimedDevice, FtlError> {
        let map = Mapper::new(map, ftl.geometry(), ftl.kind());
        let page_size = u64::from(ftl.geometry().page_size);
        let cfg = SsdConfig {
            queue_depth: QUEUE_DEPTH,
            ..SsdConfig::default()
        };
        let ssd = Ssd::new(cfg, FtlFlash::from_ftl(ftl, read_ns)).map_err(ftl_error)?;
        Ok(TimedDevice {
            ssd,
            map,
            page_size,
            now: 0,
            record: None,
        })
    }

    /// Keep every piece submitted from here on, in device addresses, so that it can
    /// be replayed without the address map ([`TimedDevice::replay`]).
    pub fn recording(&mut self) {
        self.record = Some(Vec::new());
    }

    /// Pieces kept so far.
    pub fn recorded_len(&self) -> usize {
        self.record.as_ref().map_or(0, Vec::len)
    }

    /// The pieces kept, handed over (recording stops).
    pub fn take_recorded(&mut self) -> Vec<Request> {
        self.record.take().unwrap_or_default()
    }

    /// Apply `piece` (device addresses, as [`TimedDevice::take_recorded`] returned
    /// it) to the FTL alone, outside the timed model and its clock: preconditioning,
    /// where only the FTL's state and counters matter. With one request outstanding
    /// every unit is idle between requests, so the timed model carries nothing from
    /// one request to the next that skipping it would change.
    pub fn precondition(&mut self, piece: &Request) -> Result<(), FtlError> {
        let Some((first, last)) = piece.page_range(self.page_size) else {
            return Ok(());
        };
        let ftl = self.ssd.flash_mut().ftl_mut();
        let n = last - first + 1;
        match piece.op {
            Op::Read => ftl.read(first, n),
            Op::Write => ftl.write(first, n),
            Op::Trim => ftl.trim(first, n),
        }
    }

    /// Submit `piece`, already in device addresses (one that
    /// [`TimedDevice::take_recorded`] returned), when the previous one completes.
    pub fn replay(&mut self, piece: &Request) -> Result<(), FtlError> {
        let piece = Request {
            time_ns: self.now,
            ..*piece
        };
        let c = self.ssd.submit(&piece, self.now).map_err(ftl_error)?;
        self.now = c.done_ns;
        Ok(())
    }

    /// The FTL.
    pub fn ftl(&self) -> &AnyFtl {
        self.ssd.flash().ftl()
    }

    /// The address map and what it placed.
    pub fn mapper(&mut self) -> &mut Mapper {
        &mut self.map
    }

    /// Set the FTL's counters to zero (the device's state is kept): what follows is
    /// measured alone.
    pub fn reset_counters(&mut self) {
        use wafer_ftl::Ftl;
        self.ssd.flash_mut().ftl_mut().reset_counters();
    }

    /// Elapsed time of the replay so far, ns (the last completion).
    pub fn elapsed_ns(&self) -> u64 {
        self.now
    }

    /// Replay `req` (trace addresses): mapped onto the device, one request per piece
    /// contiguous there, each issued when the previous one completes. Returns whether
    /// the map moved it.
    pub fn submit(&mut self, req: &Request) -> Result<bool, FtlError> {
        let ps = self.page_size;
        let Some((first, last)) = req.page_range(ps) else {
            return Ok(false);
        };
        let (ssd, now, record) = (&mut self.ssd, &mut self.now, &mut self.record);
        let end = req.offset + u64::from(req.len);
        self.map.map(first, last, |t, p, n| {
            // The piece's bytes: the request's, within the piece's pages.
            let lo = req.offset.max(t * ps);
            let hi = end.min((t + n) * ps);
            let piece = Request {
                time_ns: *now,
                offset: p * ps + (lo - t * ps),
                // At most the request's own length.
                len: (hi - lo) as u32,
                dev: 0,
                op: req.op,
            };
            let c = ssd.submit(&piece, *now).map_err(ftl_error)?;
            *now = c.done_ns;
            if let Some(r) = record.as_mut() {
                r.push(piece);
            }
            Ok(())
        })
    }
}

fn ftl_error(e: SsdError) -> FtlError {
    match e {
        SsdError::Ftl(f) => f,
        other => FtlError::Config(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wafer_ftl::{CellType, Device, FtlKind, Geometry, Latency};

    /// A 16 MiB page-level card of 64-page blocks on `units` flash units.
    fn card(units: u32) -> Device {
        let mut g = Geometry::with_op(16 << 20, 0.25, 4096, 64).unwrap();
        g.channels = units;
        let lat = Latency {
            read_ns: 50_000,
            program_ns: 600_000,
            erase_ns: 3_000_000,
        };
        Device::new("card", FtlKind::Page, g, lat, CellType::Mlc)
    }

    fn req(op: Op, page: u64, pages: u64) -> Request {
        Request {
            time_ns: 0,
            offset: page * 4096,
            len: (pages * 4096) as u32,
            dev: 0,
            op,
        }
    }

    #[test]
    fn one_page_at_a_time_costs_the_flash_time_plus_the_link() {
        let dev = card(1);
        let mut t = TimedDevice::new(dev.build_ftl().unwrap(), 50_000, AddressMap::Refuse).unwrap();
        // Enough overwrites of a small range that garbage collection runs.
        let mut n = 0u64;
        for i in 0..20_000u64 {
            t.submit(&req(Op::Write, (i * 7) % 900, 1)).unwrap();
            n += 1;
        }
        // A read of a page never written is charged one page read.
        t.submit(&req(Op::Read, 2000, 1)).unwrap();
        n += 1;
        let c = t.ftl().counters();
        assert!(c.erases > 0, "garbage collection ran");
        assert_eq!(c.unwritten_reads, 1);
        assert_eq!(t.elapsed_ns(), c.busy_ns + 50_000 + n * 10_000);
    }

    #[test]
    fn the_pages_of_a_request_overlap_on_several_units() {
        let time = |units| {
            let mut t =
                TimedDevice::new(card(units).build_ftl().unwrap(), 50_000, AddressMap::Refuse)
                    .unwrap();
            t.submit(&req(Op::Write, 0, 8)).unwrap();
            t.elapsed_ns()
        };
        let (one, four) = (time(1), time(4));
        // One unit: 8 programs in a row, the first after its transfer.
        assert_eq!(one, 10_000 + 8 * 600_000);
        // Four units, pages p and p + 4 on unit p: unit 3 starts when page 3 is across
        // the link (4 transfers) and programs pages 3 and 7 back to back.
        assert_eq!(four, 4 * 10_000 + 2 * 600_000);
    }
}
