;; The first pass of a dense search over sign codes (sign-codes.ts) in WebAssembly: the Hamming distance of every
;; code to the query's, then the positions of the nearest. A process's first dense query runs it before V8 has
;; optimized any JavaScript for it: over 10^6 codes the JavaScript loops took ~50 ms then, these ~12 ms. This is the
;; source of the bytes in sign-code-scan.ts; after an edit, run `node scripts/assemble-wasm.mjs` (a test checks
;; that the two agree).
(module
  (memory (export "memory") 1)

  ;; For each of `n` codes of `words` 32-bit words from `codes`: its Hamming distance to the code at `query`, stored
  ;; as a u16 at `distances` (in order) and counted at `counts` (u32 per distance). `words` must be even: two
  ;; 32-bit words are read as one 64-bit word (the codes' layout is the same either way, little-endian).
  (func (export "distances64")
    (param $codes i32) (param $n i32) (param $words i32) (param $query i32) (param $distances i32) (param $counts i32)
    (local $end i32) (local $wordEnd i32) (local $word i32) (local $distance i32) (local $count i32)
    (local.set $end (i32.add (local.get $distances) (i32.shl (local.get $n) (i32.const 1))))
    (block $done
      (loop $codes
        (br_if $done (i32.ge_u (local.get $distances) (local.get $end)))
        (local.set $distance (i32.const 0))
        (local.set $word (i32.const 0))
        (local.set $wordEnd (i32.shl (local.get $words) (i32.const 2)))
        (block $wordsDone
          (loop $words
            (br_if $wordsDone (i32.ge_u (local.get $word) (local.get $wordEnd)))
            (local.set $distance
              (i32.add (local.get $distance)
                (i32.wrap_i64
                  (i64.popcnt
                    (i64.xor
                      (i64.load (i32.add (local.get $codes) (local.get $word)))
                      (i64.load (i32.add (local.get $query) (local.get $word))))))))
            (local.set $word (i32.add (local.get $word) (i32.const 8)))
            (br $words)))
        (i32.store16 (local.get $distances) (local.get $distance))
        (local.set $count (i32.add (local.get $counts) (i32.shl (local.get $distance) (i32.const 2))))
        (i32.store (local.get $count) (i32.add (i32.load (local.get $count)) (i32.const 1)))
        (local.set $codes (i32.add (local.get $codes) (local.get $wordEnd)))
        (local.set $distances (i32.add (local.get $distances) (i32.const 2)))
        (br $codes))))

  ;; As distances64, for any `words`, one 32-bit word at a time.
  (func (export "distances32")
    (param $codes i32) (param $n i32) (param $words i32) (param $query i32) (param $distances i32) (param $counts i32)
    (local $end i32) (local $wordEnd i32) (local $word i32) (local $distance i32) (local $count i32)
    (local.set $end (i32.add (local.get $distances) (i32.shl (local.get $n) (i32.const 1))))
    (block $done
      (loop $codes
        (br_if $done (i32.ge_u (local.get $distances) (local.get $end)))
        (local.set $distance (i32.const 0))
        (local.set $word (i32.const 0))
        (local.set $wordEnd (i32.shl (local.get $words) (i32.const 2)))
        (block $wordsDone
          (loop $words
            (br_if $wordsDone (i32.ge_u (local.get $word) (local.get $wordEnd)))
            (local.set $distance
              (i32.add (local.get $distance)
                (i32.popcnt
                  (i32.xor
                    (i32.load (i32.add (local.get $codes) (local.get $word)))
                    (i32.load (i32.add (local.get $query) (local.get $word)))))))
            (local.set $word (i32.add (local.get $word) (i32.const 4)))
            (br $words)))
        (i32.store16 (local.get $distances) (local.get $distance))
        (local.set $count (i32.add (local.get $counts) (i32.shl (local.get $distance) (i32.const 2))))
        (i32.store (local.get $count) (i32.add (i32.load (local.get $count)) (i32.const 1)))
        (local.set $codes (i32.add (local.get $codes) (local.get $wordEnd)))
        (local.set $distances (i32.add (local.get $distances) (i32.const 2)))
        (br $codes))))

  ;; The positions (i32, ascending, at `out`) of the `n` distances (u16 from `distances`) below `limit`, and of the
  ;; first `atLimit` equal to it; returns how many.
  (func (export "gather")
    (param $distances i32) (param $n i32) (param $limit i32) (param $atLimit i32) (param $out i32) (result i32)
    (local $at i32) (local $distance i32) (local $found i32)
    (block $done
      (loop $slots
        (br_if $done (i32.ge_u (local.get $at) (local.get $n)))
        (local.set $distance (i32.load16_u (i32.add (local.get $distances) (i32.shl (local.get $at) (i32.const 1)))))
        (if (i32.or
              (i32.lt_u (local.get $distance) (local.get $limit))
              (i32.and
                (i32.eq (local.get $distance) (local.get $limit))
                (i32.gt_s (local.get $atLimit) (i32.const 0))))
          (then
            (if (i32.eq (local.get $distance) (local.get $limit))
              (then (local.set $atLimit (i32.sub (local.get $atLimit) (i32.const 1)))))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $found) (i32.const 2))) (local.get $at))
            (local.set $found (i32.add (local.get $found) (i32.const 1)))))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br $slots)))
    (local.get $found)))
