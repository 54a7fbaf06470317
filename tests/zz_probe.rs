use warpsim::*;
#[test]
fn probe() {
    let dev = Device::default();
    let b = dev.alloc_from("b", &(0u8..16).collect::<Vec<_>>());
    let v = b.slice(1..).cast::<f32>();
    println!("len {} addr+{}", v.len(), v.address() - b.address());
    println!(
        "{:?}",
        v.to_vec()
            .iter()
            .map(|f| f.to_bits().to_le_bytes())
            .collect::<Vec<_>>()
    );
    let h = b.slice(3..).cast::<u16>();
    println!("{:?}", h.to_vec());
    v.fill(0.0);
    println!("{:?}", b.to_vec());
    let out = dev.alloc_zeroed::<u32>("o", 32);
    let r = dev
        .launch(&LaunchConfig::new(1, 32), async |w: &mut Warp<'_>| {
            let t = w.thread_idx().x;
            let g = w.global_idx_x();
            w.store(&out, t, g);
        })
        .unwrap();
    println!("{:?}", r.counters.unwrap());
}
