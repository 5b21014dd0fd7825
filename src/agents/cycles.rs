//! Applying one permutation to many columns in place, cycle by cycle, so that a
//! re-sort needs no second copy of any column.

/// The cycles of a permutation (rows that stay put left out), found once and
/// then applied to every column.
///
/// Each cycle's rows are recorded in the order of the walk, so that applying it
/// to a column reads that list front to back and touches the column at rows known
/// ahead: the column's (random) accesses do not wait on each other, as they would
/// following `perm` from row to row (a re-sort of 1,000,000 rows took 4x longer
/// that way).
#[derive(Debug, Default)]
pub(crate) struct Cycles {
    /// The rows of every cycle, one cycle after another, the last row of each
    /// marked with [`CYCLE_END`]. A re-sort lends this the sort's spare buffer,
    /// idle between sorts ([`crate::spatial::OrderScratch::spare`]).
    pub(crate) rows: Vec<u64>,
    /// One bit a row: visited while finding the cycles.
    seen: Vec<u64>,
}

/// Marks the last row of a cycle in [`Cycles::rows`].
const CYCLE_END: u64 = 1 << 32;

impl Cycles {
    /// Find the cycles of `perm` (new row k = old row `perm[k]`).
    pub(crate) fn find(&mut self, perm: &[u32]) {
        self.rows.clear();
        // Room for every row, so that a later re-sort moving more rows does not
        // grow the buffer.
        self.rows.reserve(perm.len());
        self.seen.clear();
        self.seen.resize(perm.len().div_ceil(64), 0);
        for start in 0..perm.len() {
            if self.seen[start / 64] & (1 << (start % 64)) != 0 || perm[start] as usize == start {
                continue;
            }
            let mut row = start;
            loop {
                self.seen[row / 64] |= 1 << (row % 64);
                self.rows.push(row as u64);
                row = perm[row] as usize;
                if row == start {
                    break;
                }
            }
            if let Some(last) = self.rows.last_mut() {
                *last |= CYCLE_END;
            }
        }
    }

    /// Put `column` in the order of the permutation whose cycles these are: along
    /// each cycle `r0 -> r1 -> ... -> rk`, each row takes the value of the next,
    /// the last the first's (each value read and written once).
    pub(crate) fn apply<T: Clone>(&self, column: &mut [T]) {
        let row = |entry: u64| (entry & u64::from(u32::MAX)) as usize;
        let mut begin = 0;
        for (i, &entry) in self.rows.iter().enumerate() {
            if entry & CYCLE_END == 0 {
                continue;
            }
            let cycle = &self.rows[begin..=i];
            let first = column[row(cycle[0])].clone();
            for pair in cycle.windows(2) {
                column[row(pair[0])] = column[row(pair[1])].clone();
            }
            column[row(entry)] = first;
            begin = i + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `perm` applied by gathering into a new column.
    fn gathered(perm: &[u32], column: &[u64]) -> Vec<u64> {
        perm.iter().map(|&r| column[r as usize]).collect()
    }

    #[test]
    fn a_hand_worked_permutation() {
        // Cycles (0 2 1) and (3 4), row 5 stays: new = [c, a, b, e, d, f].
        let perm = [2, 0, 1, 4, 3, 5];
        let mut cycles = Cycles::default();
        cycles.find(&perm);
        let end = CYCLE_END;
        assert_eq!(cycles.rows, vec![0, 2, 1 | end, 3, 4 | end]);
        let mut col = ['a', 'b', 'c', 'd', 'e', 'f'];
        cycles.apply(&mut col);
        assert_eq!(col, ['c', 'a', 'b', 'e', 'd', 'f']);
    }

    #[test]
    fn in_place_equals_gathering_for_random_permutations() {
        let mut cycles = Cycles::default();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for n in [0usize, 1, 2, 7, 64, 65, 1000] {
            // A Fisher-Yates shuffle driven by a small xorshift.
            let mut perm: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                perm.swap(i, (state % (i as u64 + 1)) as usize);
            }
            let column: Vec<u64> = (0..n as u64).map(|v| v * 31 + 7).collect();
            cycles.find(&perm);
            let mut in_place = column.clone();
            cycles.apply(&mut in_place);
            assert_eq!(in_place, gathered(&perm, &column), "n = {n}");
        }
    }
}
