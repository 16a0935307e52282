//! Steady state: when replaying a cell's own after-cache stream pass after pass on its
//! aged device has settled, so that one more pass measures the policy and not what
//! aging left on the card.
//!
//! The criterion follows the steady-state definition of the SNIA Solid State Storage
//! Performance Test Specification (PTS): over a measurement window of [`WINDOW`]
//! rounds, the data excursion (largest minus smallest value) is at most
//! [`EXCURSION`] of the window's mean, and the slope excursion (the rise of the
//! least-squares line across the window) is at most [`SLOPE`] of the mean. Here a
//! round is one pass of the stream, and the values are each pass's erases and its
//! device busy time; both must settle. A cell that does not settle within
//! [`MAX_PASSES`] passes is reported not steady (`docs/experiments.md`, "Steady
//! state").

/// Passes in the measurement window.
pub const WINDOW: usize = 5;
/// Largest data excursion in the window, as a share of its mean.
pub const EXCURSION: f64 = 0.20;
/// Largest slope excursion in the window, as a share of its mean.
pub const SLOPE: f64 = 0.10;
/// Preconditioning passes after which a cell that has not settled is "not steady".
pub const MAX_PASSES: usize = 25;

/// Whether the last [`WINDOW`] values of `series` are steady: both excursions within
/// bounds. A window whose mean is 0 is steady only if every value is 0.
pub fn window_is_steady(series: &[f64]) -> bool {
    if series.len() < WINDOW {
        return false;
    }
    let w = &series[series.len() - WINDOW..];
    let n = w.len() as f64;
    let mean = w.iter().sum::<f64>() / n;
    let (lo, hi) = w
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    if mean == 0.0 {
        return hi == 0.0 && lo == 0.0;
    }
    // Least-squares slope over x = 0..n-1; the fitted line rises slope x (n - 1).
    let xm = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in w.iter().enumerate() {
        let dx = i as f64 - xm;
        sxy += dx * (y - mean);
        sxx += dx * dx;
    }
    let rise = (sxy / sxx * (n - 1.0)).abs();
    hi - lo <= EXCURSION * mean.abs() && rise <= SLOPE * mean.abs()
}

/// The number of passes after which every one of `series` (one value per pass each)
/// is steady, if it is within the passes given.
pub fn settled_after(series: &[&[f64]]) -> Option<usize> {
    let passes = series.iter().map(|s| s.len()).min().unwrap_or(0);
    (WINDOW..=passes).find(|&k| series.iter().all(|s| window_is_steady(&s[..k])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_that_levels_off_settles_after_its_window() {
        // Falling, then flat from the 4th pass: the window 4..8 is the first steady.
        let s = [100.0, 60.0, 45.0, 40.0, 41.0, 39.0, 40.0, 40.5, 40.0];
        assert_eq!(settled_after(&[&s]), Some(8));
        assert!(!window_is_steady(&s[..7]));
        assert!(window_is_steady(&s[..8]));
    }

    #[test]
    fn a_series_that_never_settles_is_not_steady() {
        // Alternating by 50%: the data excursion never falls under 20% of the mean.
        let s: Vec<f64> = (0..30)
            .map(|i| if i % 2 == 0 { 100.0 } else { 50.0 })
            .collect();
        assert_eq!(settled_after(&[&s]), None);
    }

    #[test]
    fn a_slope_too_steep_is_not_steady_though_the_range_is_small() {
        // A steady climb of 4% of the mean per pass: range 16% (within 20%), but the
        // fitted line rises 16% across the window (more than 10%).
        let s = [92.0, 96.0, 100.0, 104.0, 108.0];
        assert!(!window_is_steady(&s));
        // The same range without the trend is steady.
        let flat = [92.0, 108.0, 100.0, 96.0, 104.0];
        assert!(window_is_steady(&flat));
    }

    #[test]
    fn every_series_must_settle() {
        let erases = [10.0, 10.0, 10.0, 10.0, 10.0, 10.0];
        let busy = [50.0, 30.0, 20.0, 20.0, 20.0, 20.0, 20.0];
        assert_eq!(settled_after(&[&erases]), Some(5));
        // busy settles at 7 (window 2..7); erases has only 6 passes, so none of the
        // windows ending within both is steady for both.
        assert_eq!(settled_after(&[&erases, &busy]), None);
        let erases = [10.0; 7];
        assert_eq!(settled_after(&[&erases, &busy]), Some(7));
    }

    #[test]
    fn zero_means_steady_only_when_all_zero() {
        assert!(window_is_steady(&[0.0; 5]));
        assert!(!window_is_steady(&[0.0, 0.0, 0.0, 0.0, 1.0]));
    }
}
