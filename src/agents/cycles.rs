//! Applying one permutation to many columns in place, cycle by cycle, so that a
//! re-sort needs no second copy of any column.

/// The cycles of a permutation (rows that stay put left out), found once and
/// then applied to every column.
///
/// The permutation comes as a re-sort's sorted keys
/// ([`crate::spatial::spatial_keys`]): the low 32 bits of the `k`-th are `perm[k]`,
/// the row whose values go to row `k`. Its cycles are written into the keys' high
/// 32 bits, free once sorted: entry `t` holds the `t`-th row of the walk, cycle
/// after cycle, and a bit a row marks each cycle's last. So the cycles take no
/// buffer of their own, and applying them to a column reads that list front to
/// back and touches the column at rows known ahead: the column's (random) accesses
/// do not wait on each other, as they would following `perm` from row to row (a
/// re-sort of 1,000,000 rows took 4x longer that way).
#[derive(Debug, Default)]
pub(crate) struct Cycles {
    /// How many entries of the keys the walk fills.
    len: usize,
    /// One bit a row: visited while finding the cycles.
    seen: Vec<u64>,
    /// One bit an entry: the last row of a cycle.
    ends: Vec<u64>,
}

/// Whether bit `i` of `bits` is set.
fn bit(bits: &[u64], i: usize) -> bool {
    bits[i / 64] & (1 << (i % 64)) != 0
}

/// Set bit `i` of `bits`.
fn set(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

/// The row in the low 32 bits of a key.
fn low(entry: u64) -> usize {
    (entry & u64::from(u32::MAX)) as usize
}

impl Cycles {
    /// Find the cycles of the permutation in the low bits of `keys`, writing the
    /// walk into their high bits.
    pub(crate) fn find(&mut self, keys: &mut [u64]) {
        let n = keys.len();
        for bits in [&mut self.seen, &mut self.ends] {
            bits.clear();
            bits.resize(n.div_ceil(64), 0);
        }
        let mut t = 0;
        for start in 0..n {
            if bit(&self.seen, start) || low(keys[start]) == start {
                continue;
            }
            let mut row = start;
            loop {
                set(&mut self.seen, row);
                // Only the high half is written, and the walk reads the low half.
                keys[t] = (keys[t] & u64::from(u32::MAX)) | ((row as u64) << 32);
                t += 1;
                row = low(keys[row]);
                if row == start {
                    break;
                }
            }
            set(&mut self.ends, t - 1);
        }
        self.len = t;
    }

    /// Put `column` in the order of the permutation whose cycles `keys` hold (as
    /// [`Self::find`] left them): along each cycle `r0 -> r1 -> ... -> rk`, each row
    /// takes the value of the next, the last the first's (each value read and
    /// written once).
    pub(crate) fn apply<T: Clone>(&self, keys: &[u64], column: &mut [T]) {
        self.apply_all(keys, [column]);
    }

    /// [`Self::apply`] to `N` columns of one type in one walk of the cycles: each
    /// step of the walk moves a value in every column, so the walk (8 bytes a row)
    /// and its cycle ends are read once for all of them rather than once per column
    /// (`docs/optimisations.md`, "Re-sort: columns of one type in one walk").
    pub(crate) fn apply_all<T: Clone, const N: usize>(
        &self,
        keys: &[u64],
        mut columns: [&mut [T]; N],
    ) {
        let walk = &keys[..self.len];
        let row = |t: usize| (walk[t] >> 32) as usize;
        let mut begin = 0;
        for t in 0..walk.len() {
            if !bit(&self.ends, t) {
                continue;
            }
            let first: [T; N] = std::array::from_fn(|c| columns[c][row(begin)].clone());
            for u in begin..t {
                let (to, from) = (row(u), row(u + 1));
                for column in &mut columns {
                    column[to] = column[from].clone();
                }
            }
            for (column, first) in columns.iter_mut().zip(first) {
                column[row(t)] = first;
            }
            begin = t + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A permutation as a re-sort's keys: `perm[k]` in the low bits, junk above.
    fn keys_of(perm: &[u32]) -> Vec<u64> {
        perm.iter()
            .map(|&r| (0xABCD_u64 << 40) | u64::from(r))
            .collect()
    }

    /// `perm` applied by gathering into a new column.
    fn gathered(perm: &[u32], column: &[u64]) -> Vec<u64> {
        perm.iter().map(|&r| column[r as usize]).collect()
    }

    #[test]
    fn a_hand_worked_permutation() {
        // Cycles (0 2 1) and (3 4), row 5 stays: new = [c, a, b, e, d, f].
        let perm = [2, 0, 1, 4, 3, 5];
        let mut cycles = Cycles::default();
        let mut keys = keys_of(&perm);
        cycles.find(&mut keys);
        // The walk in the high halves, the permutation intact in the low ones.
        let walk: Vec<u64> = keys[..cycles.len].iter().map(|k| k >> 32).collect();
        assert_eq!(walk, vec![0, 2, 1, 3, 4]);
        assert_eq!(cycles.ends[0], 0b10100);
        assert!(keys.iter().zip(perm).all(|(&k, p)| k as u32 == p));
        let mut col = ['a', 'b', 'c', 'd', 'e', 'f'];
        cycles.apply(&keys, &mut col);
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
            let mut keys = keys_of(&perm);
            cycles.find(&mut keys);
            let mut in_place = column.clone();
            cycles.apply(&keys, &mut in_place);
            assert_eq!(in_place, gathered(&perm, &column), "n = {n}");
            // Three columns in one walk: each as if alone.
            let others: Vec<u64> = column.iter().map(|v| v ^ 0x5555).collect();
            let (mut a, mut b, mut c) = (column.clone(), others.clone(), column.clone());
            cycles.apply_all(&keys, [&mut a[..], &mut b[..], &mut c[..]]);
            assert_eq!(a, in_place, "n = {n}");
            assert_eq!(b, gathered(&perm, &others), "n = {n}");
            assert_eq!(c, in_place, "n = {n}");
        }
    }
}
