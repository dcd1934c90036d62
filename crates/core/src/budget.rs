//! The work budget of classifying one call: a number of steps proportional to the
//! length of the untrusted input, spent by the shell parser (every loop of it, in the
//! command and in every script nested in it) and by the shell walk (every command it
//! visits). When it runs out the classification stops and the verdict is `ask` with the
//! rule `builtin.shell.too-complex`: the cost of one call is bounded in time and memory
//! whatever the input, and a parser bug that stops advancing ends there, not in a hang.

/// Steps allowed per byte of input. Real commands spend at most 2 per byte (0.03–0.11 on
/// average over the corpora and 15,531 commands of agent traffic) and the adversarial
/// families at most 12; the rest is headroom.
pub const STEPS_PER_BYTE: usize = 32;

/// Steps every input gets whatever its length (short commands that nest `bash -c`).
pub const MIN_STEPS: usize = 4096;

/// What is left of a classification's work budget. `Budget::default()` is empty.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Budget {
    left: usize,
    limit: usize,
}

impl Budget {
    /// The budget for an input of `len` bytes: `STEPS_PER_BYTE · len + MIN_STEPS`.
    pub fn for_input(len: usize) -> Budget {
        let limit = len.saturating_mul(STEPS_PER_BYTE).saturating_add(MIN_STEPS);
        Budget { left: limit, limit }
    }

    /// Spends `n` steps; false (and empty from then on) when fewer than `n` were left.
    #[inline]
    pub fn spend(&mut self, n: usize) -> bool {
        match self.left.checked_sub(n) {
            Some(left) => {
                self.left = left;
                true
            }
            None => {
                self.left = 0;
                false
            }
        }
    }

    /// True once a spend has failed or everything was spent.
    pub fn is_exhausted(&self) -> bool {
        self.left == 0
    }

    /// Steps spent so far.
    pub fn spent(&self) -> usize {
        self.limit - self.left
    }

    /// The steps this budget started with.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spends_until_empty_and_stays_empty() {
        let mut b = Budget::for_input(0);
        assert_eq!(b.limit(), MIN_STEPS);
        assert!(b.spend(MIN_STEPS - 1));
        assert!(!b.is_exhausted());
        assert!(!b.spend(2), "spending past the limit fails");
        assert!(b.is_exhausted());
        assert!(!b.spend(0) || b.is_exhausted());
        assert_eq!(b.spent(), MIN_STEPS);
    }

    #[test]
    fn grows_linearly_and_saturates() {
        assert_eq!(
            Budget::for_input(1000).limit(),
            1000 * STEPS_PER_BYTE + MIN_STEPS
        );
        assert_eq!(Budget::for_input(usize::MAX).limit(), usize::MAX);
        assert!(Budget::default().is_exhausted());
    }
}
