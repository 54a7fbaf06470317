//! Random structured kernels on both tiers: nested `if`s on varying conditions, loops with
//! varying `break`/`continue`, early `return`s, shared memory between barriers, integer and
//! float arithmetic with C's conversions, division by zero and large shifts. Each kernel is
//! race-free by construction (a thread writes only its own shared element; others are read
//! after a barrier), so the tiers must leave the same bytes in every buffer.

use proptest::prelude::*;
use warpsim::cuda::{self, Arg, Engine, Module, Options, Tier};
use warpsim::{Device, LaunchConfig, Mode};

fn int_leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("t".to_string()),
        Just("i".to_string()),
        Just("n".to_string()),
        (-9i32..40).prop_map(|c| format!("({c})")),
        Just("in[i]".to_string()),
        Just("(int)f".to_string()),
    ]
}

fn int_expr() -> impl Strategy<Value = String> {
    int_leaf().prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (
                inner.clone(),
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "&", "|", "^", "/", "%", "<<", ">>"])
            )
                .prop_map(|(a, b, op)| format!("({a} {op} {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("min({a}, {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("max({a}, {b})")),
            inner.clone().prop_map(|a| format!("abs({a})")),
            inner
                .clone()
                .prop_map(|a| format!("(int)((unsigned int)({a}) >> 3)")),
            inner
                .clone()
                .prop_map(|a| format!("(int)(unsigned char)({a})")),
            inner
                .clone()
                .prop_map(|a| format!("(int)(short)({a} * 977)")),
            (cond(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
            inner.prop_map(|a| format!("(int)((float)({a}) * 0.75f)")),
        ]
    })
}

fn float_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("f".to_string()),
        Just("(float)a".to_string()),
        Just("(float)t".to_string()),
        Just("fin[i]".to_string()),
        (-4i32..9).prop_map(|c| format!("{c}.5f")),
    ];
    leaf.prop_recursive(2, 8, 2, |inner| {
        prop_oneof![
            (
                inner.clone(),
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "/"])
            )
                .prop_map(|(a, b, op)| format!("({a} {op} {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("fminf({a}, {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("fmaxf({a}, {b})")),
            inner.clone().prop_map(|a| format!("sqrtf(fabsf({a}))")),
            inner.clone().prop_map(|a| format!("floorf({a})")),
            inner.prop_map(|a| format!("(float)(int)({a})")),
        ]
    })
}

fn cond() -> BoxedStrategy<String> {
    prop_oneof![
        (
            int_leaf(),
            int_leaf(),
            prop::sample::select(vec!["<", "<=", "==", "!=", ">", ">="])
        )
            .prop_map(|(a, b, op)| format!("({a} {op} {b})")),
        (0u32..4).prop_map(|k| format!("((t & {}) == 0)", 1 << k)),
        (1i32..5).prop_map(|k| format!("(a % {k} == 1)")),
        Just("(f > 2.0f)".to_string()),
        (8u32..70).prop_map(|k| format!("(t < {k})")),
        Just("(i >= n)".to_string()),
    ]
    .boxed()
}

/// A statement list (`depth` bounds the nesting); `in_loop` allows `break`/`continue`.
fn stmts(depth: u32, in_loop: bool) -> BoxedStrategy<String> {
    let assign = prop_oneof![
        int_expr().prop_map(|e| format!("a = {e};")),
        int_expr().prop_map(|e| format!("b = {e};")),
        float_expr().prop_map(|e| format!("f = {e};")),
        int_expr().prop_map(|e| format!("a += {e};")),
    ];
    let mut choices: Vec<BoxedStrategy<String>> = vec![assign.clone().boxed(), assign.boxed()];
    if in_loop {
        choices.push(cond().prop_map(|c| format!("if {c} break;")).boxed());
        choices.push(cond().prop_map(|c| format!("if {c} continue;")).boxed());
    }
    if depth > 0 {
        let body = stmts(depth - 1, in_loop);
        choices.push(
            (cond(), body.clone(), body)
                .prop_map(|(c, x, y)| format!("if {c} {{ {x} }} else {{ {y} }}"))
                .boxed(),
        );
        let lbody = stmts(depth - 1, true);
        choices.push(
            ((1u32..6), lbody.clone())
                .prop_map(|(k, x)| format!("for (int k = 0; k < {k} + (t & 1); k++) {{ {x} }}"))
                .boxed(),
        );
        choices.push(
            lbody
                .prop_map(|x| format!("{{ int w = 0; while (w < 3) {{ w++; {x} }} }}"))
                .boxed(),
        );
    }
    prop::collection::vec(prop::strategy::Union::new(choices), 1..4)
        .prop_map(|v| v.join(" "))
        .boxed()
}

fn kernel() -> impl Strategy<Value = String> {
    (
        stmts(2, false),
        stmts(2, false),
        stmts(1, false),
        1u32..64,
        any::<bool>(),
    )
        .prop_map(|(first, second, last, shift, exits)| {
            let exit = if exits {
                "if (t % 7 == 3) { out[i] = a; return; }"
            } else {
                ""
            };
            format!(
                "__global__ void k(int *out, const int *in, float *fout, const float *fin, int n) {{
                    __shared__ int s[128];
                    int t = threadIdx.x;
                    int i = blockIdx.x * blockDim.x + t;
                    int a = in[i];
                    int b = t * 3;
                    float f = fin[i];
                    {first}
                    s[t] = a;
                    __syncthreads();
                    a += s[(t + {shift}) % blockDim.x];
                    __syncthreads();
                    {second}
                    s[t] = b;
                    __syncthreads();
                    b ^= s[blockDim.x - 1 - t];
                    {exit}
                    {last}
                    out[i] = a ^ b;
                    fout[i] = f;
                }}"
            )
        })
}

/// Run `k` on one tier: the buffers' bytes, or the error.
fn run(src: &str, engine: Engine, block: u32) -> (Result<Vec<Vec<u8>>, String>, Option<Tier>) {
    let module = Module::from_source("random.cu", src, &Options::default()).expect("parses");
    let k = module.lower("k").expect("lowers");
    let dev = Device::default();
    let n = 2 * block as usize;
    let ints: Vec<i32> = (0..n as i32).map(|x| (x * 37 % 23) - 5).collect();
    let floats: Vec<f32> = (0..n).map(|x| (x % 11) as f32 * 0.75 - 2.0).collect();
    let out = dev.alloc_zeroed::<i32>("out", n);
    let inp = dev.alloc_from("in", &ints);
    let fout = dev.alloc_zeroed::<f32>("fout", n);
    let fin = dev.alloc_from("fin", &floats);
    let cfg = LaunchConfig::new(2, block).mode(Mode::Fast).engine(engine);
    let args = [
        Arg::buffer(&out),
        Arg::buffer(&inp),
        Arg::buffer(&fout),
        Arg::buffer(&fin),
        Arg::Int(n as i128 - 3),
    ];
    match cuda::launch(&dev, &k, &cfg, &args) {
        Ok(r) => (
            Ok(vec![out.cast::<u8>().to_vec(), fout.cast::<u8>().to_vec()]),
            Some(r.tier),
        ),
        Err(e) => (Err(e.to_string()), None),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_kernels_give_the_same_results_on_both_tiers(src in kernel(), wide in any::<bool>()) {
        let block = if wide { 64 } else { 96 };
        let (want, _) = run(&src, Engine::Interp, block);
        let (got, tier) = run(&src, Engine::Auto, block);
        if let Some(t) = &tier {
            prop_assert!(matches!(t, Tier::Compiled { .. }), "not compiled: {t:?}\n{src}");
        }
        prop_assert_eq!(want, got, "{}", src);
    }
}
