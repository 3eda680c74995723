;; The rarer terms' part of a BM25 query (bm25-rare-sums.ts): the union of their postings lists' keys, ascending,
;; each with the sum of the terms' scores in that chunk, added in list order: the same IEEE operations, in the same
;; order, as the JavaScript in bm25-top-keys.ts, so the sums are bit-identical.
;;
;; Memory, laid out by the caller: `lists` holds one descriptor of 16 bytes per list (keys, tfs and lengths: byte
;; offsets of i32 arrays; count), `idfs` one f64 per list, `cursors` one i32 per list (zero); the union's keys go to
;; `outKeys` (i32) and their sums to `outSums` (f64), at most the lists' total count of each.
(module
  (memory (export "memory") 1)
  (func (export "unionSums")
    (param $lists i32) (param $idfs i32) (param $cursors i32) (param $k i32)
    (param $k1 f64) (param $b f64) (param $average f64)
    (param $outKeys i32) (param $outSums i32)
    (result i32)
    (local $n i32) (local $i i32) (local $d i32) (local $cursor i32) (local $pos i32)
    (local $key i32) (local $min i32) (local $any i32)
    (local $sum f64) (local $tf f64) (local $norm f64)
    (loop $next
      ;; The smallest key at a cursor.
      (local.set $any (i32.const 0))
      (local.set $min (i32.const 0))
      (local.set $i (i32.const 0))
      (block $scanned
        (loop $scan
          (br_if $scanned (i32.ge_u (local.get $i) (local.get $k)))
          (local.set $d (i32.add (local.get $lists) (i32.shl (local.get $i) (i32.const 4))))
          (local.set $pos (i32.load (i32.add (local.get $cursors) (i32.shl (local.get $i) (i32.const 2)))))
          (if (i32.lt_u (local.get $pos) (i32.load offset=12 (local.get $d)))
            (then
              (local.set $key
                (i32.load (i32.add (i32.load (local.get $d)) (i32.shl (local.get $pos) (i32.const 2)))))
              (if (i32.or (i32.eqz (local.get $any)) (i32.lt_s (local.get $key) (local.get $min)))
                (then
                  (local.set $min (local.get $key))
                  (local.set $any (i32.const 1))))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $scan)))
      (if (i32.eqz (local.get $any)) (then (return (local.get $n))))
      ;; Its scores, list by list: sum + idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average)).
      (local.set $sum (f64.const 0))
      (local.set $i (i32.const 0))
      (block $added
        (loop $add
          (br_if $added (i32.ge_u (local.get $i) (local.get $k)))
          (local.set $d (i32.add (local.get $lists) (i32.shl (local.get $i) (i32.const 4))))
          (local.set $cursor (i32.add (local.get $cursors) (i32.shl (local.get $i) (i32.const 2))))
          (local.set $pos (i32.load (local.get $cursor)))
          (if (i32.lt_u (local.get $pos) (i32.load offset=12 (local.get $d)))
            (then
              (if (i32.eq
                    (i32.load (i32.add (i32.load (local.get $d)) (i32.shl (local.get $pos) (i32.const 2))))
                    (local.get $min))
                (then
                  (local.set $tf (f64.convert_i32_s
                    (i32.load (i32.add (i32.load offset=4 (local.get $d)) (i32.shl (local.get $pos) (i32.const 2))))))
                  (local.set $norm
                    (f64.mul (local.get $k1)
                      (f64.add
                        (f64.sub (f64.const 1) (local.get $b))
                        (f64.div
                          (f64.mul (local.get $b)
                            (f64.convert_i32_s
                              (i32.load
                                (i32.add (i32.load offset=8 (local.get $d)) (i32.shl (local.get $pos) (i32.const 2))))))
                          (local.get $average)))))
                  (local.set $sum
                    (f64.add (local.get $sum)
                      (f64.div
                        (f64.mul
                          (f64.mul
                            (f64.load (i32.add (local.get $idfs) (i32.shl (local.get $i) (i32.const 3))))
                            (local.get $tf))
                          (f64.add (local.get $k1) (f64.const 1)))
                        (f64.add (local.get $tf) (local.get $norm)))))
                  (i32.store (local.get $cursor) (i32.add (local.get $pos) (i32.const 1)))))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $add)))
      (i32.store (i32.add (local.get $outKeys) (i32.shl (local.get $n) (i32.const 2))) (local.get $min))
      (f64.store (i32.add (local.get $outSums) (i32.shl (local.get $n) (i32.const 3))) (local.get $sum))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $next))
    (local.get $n))

  ;; The k-th largest of the n sums at `sums` (f64), or 0 when fewer than k of them are positive: a min-heap of the
  ;; k largest so far at `heap` (k f64), as kthLargest in bm25-top-keys.ts.
  (func (export "kthLargest") (param $sums i32) (param $n i32) (param $k i32) (param $heap i32) (result f64)
    (local $i i32) (local $size i32) (local $at i32) (local $parent i32) (local $left i32) (local $right i32)
    (local $child i32) (local $value f64)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $value (f64.load (i32.add (local.get $sums) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $each (i32.eqz (f64.gt (local.get $value) (f64.const 0))))
        (if (i32.lt_u (local.get $size) (local.get $k))
          (then
            ;; Sift up from the end.
            (local.set $at (local.get $size))
            (local.set $size (i32.add (local.get $size) (i32.const 1)))
            (block $placed
              (loop $up
                (br_if $placed (i32.eqz (local.get $at)))
                (local.set $parent (i32.shr_u (i32.sub (local.get $at) (i32.const 1)) (i32.const 1)))
                (br_if $placed
                  (i32.eqz (f64.gt (f64.load (i32.add (local.get $heap) (i32.shl (local.get $parent) (i32.const 3))))
                                   (local.get $value))))
                (f64.store (i32.add (local.get $heap) (i32.shl (local.get $at) (i32.const 3)))
                  (f64.load (i32.add (local.get $heap) (i32.shl (local.get $parent) (i32.const 3)))))
                (local.set $at (local.get $parent))
                (br $up)))
            (f64.store (i32.add (local.get $heap) (i32.shl (local.get $at) (i32.const 3))) (local.get $value))
            (br $each)))
        (br_if $each (f64.le (local.get $value) (f64.load (local.get $heap))))
        ;; Replace the root and sift it down.
        (local.set $at (i32.const 0))
        (block $sunk
          (loop $down
            (local.set $left (i32.add (i32.shl (local.get $at) (i32.const 1)) (i32.const 1)))
            (br_if $sunk (i32.ge_u (local.get $left) (local.get $k)))
            (local.set $right (i32.add (local.get $left) (i32.const 1)))
            (local.set $child (local.get $left))
            (if (i32.lt_u (local.get $right) (local.get $k))
              (then
                (if (f64.lt (f64.load (i32.add (local.get $heap) (i32.shl (local.get $right) (i32.const 3))))
                            (f64.load (i32.add (local.get $heap) (i32.shl (local.get $left) (i32.const 3)))))
                  (then (local.set $child (local.get $right))))))
            (br_if $sunk
              (f64.ge (f64.load (i32.add (local.get $heap) (i32.shl (local.get $child) (i32.const 3))))
                      (local.get $value)))
            (f64.store (i32.add (local.get $heap) (i32.shl (local.get $at) (i32.const 3)))
              (f64.load (i32.add (local.get $heap) (i32.shl (local.get $child) (i32.const 3)))))
            (local.set $at (local.get $child))
            (br $down)))
        (f64.store (i32.add (local.get $heap) (i32.shl (local.get $at) (i32.const 3))) (local.get $value))
        (br $each)))
    (if (result f64) (i32.eq (local.get $size) (local.get $k))
      (then (f64.load (local.get $heap)))
      (else (f64.const 0))))

  ;; The keys (i32, at `keys`) of the n sums (f64, at `sums`) not below the floor: kept unless
  ;; (sum + bound) * factor < floor. Written to `out` (i32); returns how many.
  (func (export "survivors")
    (param $keys i32) (param $sums i32) (param $n i32) (param $bound f64) (param $factor f64) (param $floor f64)
    (param $out i32) (result i32)
    (local $i i32) (local $count i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.eqz
              (f64.lt
                (f64.mul
                  (f64.add (f64.load (i32.add (local.get $sums) (i32.shl (local.get $i) (i32.const 3))))
                           (local.get $bound))
                  (local.get $factor))
                (local.get $floor)))
          (then
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2)))
              (i32.load (i32.add (local.get $keys) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $count)))
