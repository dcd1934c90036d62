//! A decimal number to the nearest `f64` (ties to even), without tables: the JSON
//! reader's floats ([`super::read`]). Exact where it matters: a call's arguments are
//! hashed into a marker's anchor, so a float must read back to the very `f64` it was
//! written from (serde_json's `float_roundtrip`, which this replaces in the
//! WebAssembly module: its float code was 10 KB of the module before wasm-opt).
//!
//! The common case (at most 19 digits, a value below 2^53 scaled by a power of ten
//! that is itself an exact `f64`) is one correctly rounded multiplication or division.
//! Otherwise the digits become a big integer, scaled by powers of five and two, and the
//! quotient's top bits are rounded with a sticky bit for everything below them. Beyond
//! 780 significant digits the rest only matters through whether it is zero (a value
//! halfway between two doubles has at most 767 significant digits), so it is kept as
//! one more non-zero digit.

/// Significant digits kept before the rest is folded into a sticky digit.
const MAX_DIGITS: usize = 780;

/// 10^0 ..= 10^22, every one an exact `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The value of `int.frac × 10^exp` (ASCII digits, either may be empty), rounded to the
/// nearest `f64`; infinity past `f64::MAX`.
pub(crate) fn decimal_to_f64(int: &[u8], frac: &[u8], exp: i64) -> f64 {
    // The significant digits and the exponent of the last one.
    let all = || int.iter().chain(frac.iter()).copied();
    let lead = all().take_while(|&d| d == b'0').count();
    let total = int.len() + frac.len();
    let trail = all().rev().take_while(|&d| d == b'0').count();
    if lead == total {
        return 0.0;
    }
    let n = total - lead - trail;
    let digits = || all().skip(lead).take(n);
    // value = D × 10^e, D the n digits.
    let e = exp
        .saturating_sub(frac.len() as i64)
        .saturating_add(trail as i64);
    let magnitude = e.saturating_add(n as i64); // value < 10^magnitude
    if magnitude > 310 {
        return f64::INFINITY;
    }
    if magnitude < -324 {
        return 0.0;
    }
    if n <= 19 {
        let d = digits().fold(0u64, |d, c| d * 10 + u64::from(c - b'0'));
        if let Some(&p) = POW10.get(e.unsigned_abs() as usize).filter(|_| d < 1 << 53) {
            let f = d as f64;
            return if e >= 0 { f * p } else { f / p };
        }
    }
    let mut d = Big::default();
    let kept = n.min(MAX_DIGITS);
    let mut e = e + (n - kept) as i64;
    for c in digits().take(kept) {
        d.mul_small(10);
        d.add_small(u32::from(c - b'0'));
    }
    if n > kept && digits().skip(kept).any(|c| c != b'0') {
        d.mul_small(10);
        d.add_small(1);
        e -= 1;
    }
    let (top, exp2, sticky) = if e >= 0 {
        d.mul_pow5(e as u32);
        let (top, shift, sticky) = d.top64();
        (top, shift + e, sticky)
    } else {
        // D / 10^k = D / (5^k 2^k): a quotient of 66 or 67 bits.
        let k = (-e) as u32;
        let mut s = Big::default();
        s.add_small(1);
        s.mul_pow5(k);
        let diff = d.bits() as i64 - s.bits() as i64;
        let up = 66 - diff; // D × 2^up / S has 66 or 67 bits
        if up > 0 {
            d.shl(up as u32);
        } else {
            s.shl((-up) as u32);
        }
        let (q, rest) = d.div_small_quotient(&s);
        let shift = 128 - q.leading_zeros() as i64 - 64;
        let top = (q >> shift) as u64;
        let sticky = rest || q & ((1u128 << shift) - 1) != 0;
        (top, shift - up - k as i64, sticky)
    };
    round(top, exp2, sticky)
}

/// `top × 2^exp2` (bit 63 of `top` set), plus something less than one unit of `top`'s
/// last bit when `sticky`, rounded to the nearest `f64`, ties to even.
fn round(top: u64, exp2: i64, sticky: bool) -> f64 {
    // The exponent of the leading bit.
    let lead = exp2 + 63;
    if lead > 1023 {
        return f64::INFINITY;
    }
    // Bits of `top` below the 53 an f64 keeps (more for a subnormal).
    let drop = if lead >= -1022 {
        11
    } else {
        11 + (-1022 - lead)
    };
    if drop > 64 {
        return 0.0;
    }
    let (mant, rest, half) = if drop == 64 {
        (0, top, 1u64 << 63)
    } else {
        let drop = drop as u32;
        (top >> drop, top & ((1 << drop) - 1), 1 << (drop - 1))
    };
    let up = rest > half || (rest == half && (sticky || mant & 1 == 1));
    let mut mant = mant + u64::from(up);
    if lead < -1022 {
        // Subnormal: the bits are the mantissa (2^52 after rounding up is the
        // smallest normal number, with the same bits).
        return f64::from_bits(mant);
    }
    let mut lead = lead;
    if mant == 1 << 53 {
        mant >>= 1;
        lead += 1;
        if lead > 1023 {
            return f64::INFINITY;
        }
    }
    f64::from_bits((((lead + 1023) as u64) << 52) | (mant & ((1 << 52) - 1)))
}

/// An unsigned big integer, 32-bit limbs, least significant first.
#[derive(Default, Clone)]
struct Big(Vec<u32>);

impl Big {
    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn add_small(&mut self, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            if carry == 0 {
                return;
            }
            let v = u64::from(*limb) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow5(&mut self, mut k: u32) {
        // 5^13 is the largest power of five below 2^32.
        while k >= 13 {
            self.mul_small(1_220_703_125);
            k -= 13;
        }
        if k > 0 {
            self.mul_small(5u32.pow(k));
        }
    }

    fn bits(&self) -> u32 {
        let top = self.0.iter().rposition(|&l| l != 0);
        top.map_or(0, |i| {
            i as u32 * 32 + 32 - self.0.get(i).map_or(32, |l| l.leading_zeros())
        })
    }

    fn bit(&self, i: u32) -> bool {
        self.0
            .get((i / 32) as usize)
            .is_some_and(|l| l >> (i % 32) & 1 == 1)
    }

    /// The top 64 bits (the leading one at bit 63), the power of two they are scaled
    /// by, and whether any bit below them is set.
    fn top64(&self) -> (u64, i64, bool) {
        let bits = self.bits();
        let mut top = 0u64;
        for i in 0..64 {
            let at = bits as i64 - 1 - i;
            top <<= 1;
            if at >= 0 && self.bit(at as u32) {
                top |= 1;
            }
        }
        let below = bits.saturating_sub(64);
        let sticky = (0..below).any(|i| self.bit(i));
        (top, bits as i64 - 64, sticky)
    }

    fn shl(&mut self, n: u32) {
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = *limb;
                *limb = (v << bits) | carry;
                carry = v >> (32 - bits);
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        if limbs > 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        }
    }

    fn ge(&self, other: &Big) -> bool {
        let len = self.0.len().max(other.0.len());
        for i in (0..len).rev() {
            let a = self.0.get(i).copied().unwrap_or(0);
            let b = other.0.get(i).copied().unwrap_or(0);
            if a != b {
                return a > b;
            }
        }
        true
    }

    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let v = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(v < 0);
            *limb = v.rem_euclid(1 << 32) as u32;
        }
    }

    fn shr1(&mut self) {
        let mut carry = 0u32;
        for limb in self.0.iter_mut().rev() {
            let v = *limb;
            *limb = (v >> 1) | (carry << 31);
            carry = v & 1;
        }
    }

    /// `self / d` when the quotient fits 68 bits, by shift and subtract; and whether a
    /// remainder was left. `self` is consumed into the remainder.
    fn div_small_quotient(&mut self, d: &Big) -> (u128, bool) {
        let steps = self.bits().saturating_sub(d.bits()) + 1;
        let mut shifted = d.clone();
        shifted.shl(steps - 1);
        let mut q = 0u128;
        for _ in 0..steps {
            q <<= 1;
            if self.ge(&shifted) {
                self.sub(&shifted);
                q |= 1;
            }
            shifted.shr1();
        }
        (q, self.bits() > 0)
    }
}
