//! Columns most worlds never use, stored only once some agent needs them.

use serde::{Deserialize, Serialize};

/// A column that holds one row per agent once it has been started, and none
/// before: the approach walker's state, host-driven velocities, own paths,
/// second targets and formation offsets cost nothing in a world that does not
/// use them. A row past the end of a column that is not started reads as the
/// column's default (what every row would hold).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Lazy<T> {
    rows: Vec<T>,
    /// Whether `rows` holds a row per agent.
    started: bool,
}

impl<T: Clone> Lazy<T> {
    /// Give each of the `len` rows `fill`, and every row pushed from now on a
    /// value; nothing when started already.
    pub(crate) fn start(&mut self, len: usize, fill: T) {
        if !self.started {
            self.started = true;
            self.rows.clear();
            self.rows.resize(len, fill);
        }
    }

    /// The rows: one per agent once started, none before.
    pub(crate) fn rows(&self) -> &[T] {
        &self.rows
    }

    /// The rows, to change in place.
    pub(crate) fn rows_mut(&mut self) -> &mut [T] {
        &mut self.rows
    }

    /// The entry of `row`, if the column is started.
    pub(crate) fn get(&self, row: usize) -> Option<&T> {
        self.rows.get(row)
    }

    /// The entry of `row`, to change, if the column is started.
    pub(crate) fn get_mut(&mut self, row: usize) -> Option<&mut T> {
        self.rows.get_mut(row)
    }

    /// Append a row's value, if the column is started.
    pub(crate) fn push(&mut self, value: T) {
        if self.started {
            self.rows.push(value);
        }
    }

    /// Remove `row` by moving the last row into it, if the column is started.
    pub(crate) fn swap_remove(&mut self, row: usize) {
        if self.started {
            self.rows.swap_remove(row);
        }
    }

    /// Room for `additional` more rows, if the column is started.
    pub(crate) fn try_reserve(
        &mut self,
        additional: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        if self.started {
            self.rows.try_reserve(additional)?;
        }
        Ok(())
    }

    /// Whether the column has one row for each of `len` agents (started) or none.
    pub(crate) fn holds(&self, len: usize) -> bool {
        self.rows.len() == if self.started { len } else { 0 }
    }

    /// Take the rows out, leaving the column started and empty (for a pass that
    /// writes them while reading the other columns); [`Self::put_back`] returns them.
    pub(crate) fn take_rows(&mut self) -> Vec<T> {
        std::mem::take(&mut self.rows)
    }

    /// Return the rows taken by [`Self::take_rows`].
    pub(crate) fn put_back(&mut self, rows: Vec<T>) {
        self.rows = rows;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_nothing_until_started_then_a_row_per_agent() {
        let mut c: Lazy<u32> = Lazy::default();
        c.push(5);
        c.swap_remove(0);
        assert!(c.rows().is_empty() && c.holds(3) && !c.started);
        assert_eq!(c.get(0), None);
        c.start(3, 7);
        c.start(3, 9); // started already: nothing changes
        c.push(1);
        assert_eq!(c.rows(), &[7, 7, 7, 1]);
        assert!(c.holds(4) && !c.holds(3));
        c.swap_remove(0);
        assert_eq!(c.rows(), &[1, 7, 7]);
        *c.get_mut(2).unwrap() = 4;
        assert_eq!(c.get(2), Some(&4));
    }
}
