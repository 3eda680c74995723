;; A postings block decoded (postings-decode.ts): unsigned LEB128 varints, three per posting (the key's gap from the
;; previous key, the frequency, the chunk's length), as decodePostingsInto in postings-codec.ts decodes them, with
;; the same answers for damaged bytes. Returns 0 when the `len` bytes at `block` are `count` postings (written as i32
;; to `keys`, `tfs` and `lens`), 1 when they hold more postings than that, 2 when they are not readable (a varint of
;; more than five bytes, a key past 2^31 - 1, fewer postings, or bytes ending inside one).
(module
  (memory (export "memory") 1)
  (func (export "decode")
    (param $block i32) (param $len i32) (param $count i32) (param $keys i32) (param $tfs i32) (param $lens i32)
    (result i32)
    (local $index i32) (local $byte i32) (local $next i32) (local $field i32) (local $shift i64)
    (local $value i64) (local $key i64)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $index) (local.get $len)))
        (local.set $byte (i32.load8_u (i32.add (local.get $block) (local.get $index))))
        (local.set $index (i32.add (local.get $index) (i32.const 1)))
        (local.set $value
          (i64.add (local.get $value)
            (i64.shl (i64.extend_i32_u (i32.and (local.get $byte) (i32.const 0x7f))) (local.get $shift))))
        (if (i32.ge_u (local.get $byte) (i32.const 0x80))
          (then
            (local.set $shift (i64.add (local.get $shift) (i64.const 7)))
            ;; The JavaScript's scale past 2^28: a sixth byte.
            (if (i64.gt_u (local.get $shift) (i64.const 28)) (then (return (i32.const 2))))
            (br $each)))
        (if (i32.eq (local.get $next) (local.get $count)) (then (return (i32.const 1))))
        (if (i32.eqz (local.get $field))
          (then
            (local.set $key (i64.add (local.get $key) (local.get $value)))
            (if (i64.gt_u (local.get $key) (i64.const 0x7fffffff)) (then (return (i32.const 2))))
            (i32.store (i32.add (local.get $keys) (i32.shl (local.get $next) (i32.const 2)))
              (i32.wrap_i64 (local.get $key))))
          (else
            (if (i32.eq (local.get $field) (i32.const 1))
              (then
                (i32.store (i32.add (local.get $tfs) (i32.shl (local.get $next) (i32.const 2)))
                  (i32.wrap_i64 (local.get $value))))
              (else
                (i32.store (i32.add (local.get $lens) (i32.shl (local.get $next) (i32.const 2)))
                  (i32.wrap_i64 (local.get $value)))
                (local.set $next (i32.add (local.get $next) (i32.const 1)))))))
        (local.set $field
          (select (i32.const 0) (i32.add (local.get $field) (i32.const 1)) (i32.eq (local.get $field) (i32.const 2))))
        (local.set $value (i64.const 0))
        (local.set $shift (i64.const 0))
        (br $each)))
    (if (result i32)
      (i32.and
        (i32.and (i32.eq (local.get $next) (local.get $count)) (i32.eqz (local.get $field)))
        (i64.eqz (local.get $shift)))
      (then (i32.const 0))
      (else (i32.const 2)))))
