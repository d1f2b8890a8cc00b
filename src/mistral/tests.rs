use super::*;

fn status(status: u16, retry_after: Option<&'static str>, body: &'static str) -> Attempt<'static> {
    Attempt::Status {
        status,
        retry_after,
        body,
    }
}

#[test]
fn the_key_never_prints() {
    let key = ApiKey::new("  sk-secret-123 ").unwrap();
    assert_eq!(format!("{key} {key:?}"), "*** ApiKey(***)");
    assert_eq!(key.bearer(), "Bearer sk-secret-123");
    assert!(ApiKey::new("   ").is_none());
}

#[test]
fn a_key_an_http_header_cannot_carry_is_refused_and_never_quoted() {
    for (raw, position, code) in [
        ("sk-abc\u{200b}def", 7, 0x200b),
        ("sk-abc\r\ndef", 7, 0x0d),
        ("sk-clé", 6, 0xe9),
        ("sk abc", 3, 0x20),
    ] {
        let err = ApiKey::parse(raw).unwrap_err();
        assert_eq!(err, KeyError::BadCharacter { position, code }, "{raw:?}");
        assert!(!err.to_string().contains("abc"), "{err}");
    }
    assert_eq!(ApiKey::parse(" \t"), Err(KeyError::Empty));
    assert!(ApiKey::parse("  AbC-123_xyz\n").is_ok());
}

#[test]
fn request_body_names_the_model_and_inputs() {
    assert_eq!(
        embedding_request(&["a \"b\""]),
        r#"{"model":"mistral-embed","input":["a \"b\""]}"#
    );
}

#[test]
fn parses_vectors_in_index_order_and_the_usage() {
    let body = r#"{"id":"x","object":"list","data":[{"object":"embedding","embedding":[0.0,1.0],"index":1},
        {"object":"embedding","embedding":[1.0,0.0],"index":0}],"model":"mistral-embed",
        "usage":{"prompt_tokens":7,"total_tokens":7,"completion_tokens":0,"request_count":null}}"#;
    let e = parse_embeddings(body, 2).unwrap();
    assert_eq!(e.vectors, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
    assert_eq!((e.prompt_tokens, e.total_tokens), (7, 7));
}

#[test]
fn a_200_with_an_html_body_is_malformed_not_a_panic() {
    let err = parse_embeddings("<html><body>Proxy</body></html>", 1).unwrap_err();
    assert!(matches!(err, ApiError::Malformed { .. }), "{err:?}");
    let err = parse_embeddings(r#"{"data":[],"usage":{"prompt_tokens":1}}"#, 1).unwrap_err();
    assert_eq!(
        err,
        ApiError::Malformed {
            detail: "0 vectors for 1 texts".into()
        }
    );
    let err = parse_embeddings(
        r#"{"data":[{"embedding":[1.0],"index":5}],"usage":{"prompt_tokens":1}}"#,
        1,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ApiError::Malformed {
            detail: "index 5 out of range".into()
        }
    );
}

#[test]
fn reads_every_real_error_body() {
    // Bodies quoted from the real API (see error_message's documentation).
    for (body, expected) in [
        (r#"{"detail":"Unauthorized"}"#, "Unauthorized"),
        (
            r#"{"message":"Unauthorized","request_id":"a1b2"}"#,
            "Unauthorized",
        ),
        (
            r#"{"message":"Requests rate limit exceeded"}"#,
            "Requests rate limit exceeded",
        ),
        (
            r#"{"object":"error","message":"Rate limit exceeded","type":"rate_limited","param":null,"code":"1300"}"#,
            "Rate limit exceeded",
        ),
        (
            r#"{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","dimensions"],"msg":"Extra inputs are not permitted","input":3}]},"type":"invalid_request_error","param":null,"code":null}"#,
            "Extra inputs are not permitted (dimensions)",
        ),
        (
            r#"{"detail":[{"loc":["body","input",0],"msg":"Input should be a valid string"}]}"#,
            "Input should be a valid string (input.0)",
        ),
        (
            r#"{"object":"error","message":"Too many tokens overall, split into more batches.","type":"invalid_request_message_error","param":null,"code":"3210"}"#,
            "Too many tokens overall, split into more batches.",
        ),
        (
            "<html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>",
            "502 Bad Gateway",
        ),
        ("Bad Gateway", "Bad Gateway"),
    ] {
        assert_eq!(error_message(body), expected, "{body}");
    }
}

#[test]
fn never_retries_a_refused_key_or_a_bad_request() {
    let e = CallKind::Embeddings;
    let refused = status(401, None, r#"{"detail":"Unauthorized"}"#);
    assert_eq!(
        next_step(e, 1, &refused),
        Next::Fail(ApiError::KeyRefused { status: 401 })
    );
    let forbidden = status(403, Some("1"), "");
    assert_eq!(
        next_step(e, 1, &forbidden),
        Next::Fail(ApiError::KeyRefused { status: 403 })
    );
    let bad = status(422, None, r#"{"message":"input"}"#);
    assert_eq!(
        next_step(e, 1, &bad),
        Next::Fail(ApiError::Rejected {
            status: 422,
            message: "input".into()
        })
    );
    // Only 500, 502, 503 and 504 are worth waiting for, as in the official clients.
    assert!(matches!(
        next_step(e, 1, &status(501, None, "")),
        Next::Fail(ApiError::Rejected { status: 501, .. })
    ));
}

#[test]
fn honours_retry_after_else_waits_for_a_minute_limit_then_gives_up() {
    let e = CallKind::Embeddings;
    let limited = status(429, Some("3"), "");
    let rate = WaitReason::RateLimited;
    assert_eq!(
        next_step(e, 1, &limited),
        Next::Retry {
            wait_ms: 3000,
            reason: rate
        }
    );
    assert_eq!(
        next_step(e, MAX_ATTEMPTS, &limited),
        Next::Fail(ApiError::RateLimited)
    );
    // Without a readable Retry-After (always so in a browser): ten seconds, thirty, sixty.
    let no_header = status(429, None, "");
    let waits: Vec<Next> = (1..MAX_ATTEMPTS)
        .map(|n| next_step(e, n, &no_header))
        .collect();
    let expected: Vec<Next> = [10_000, 30_000, 60_000]
        .map(|wait_ms| Next::Retry {
            wait_ms,
            reason: rate,
        })
        .into();
    assert_eq!(waits, expected);
    let huge = status(503, Some("86400"), "");
    assert_eq!(
        next_step(e, 1, &huge),
        Next::Retry {
            wait_ms: 60_000,
            reason: WaitReason::Server(503)
        }
    );
    assert_eq!(
        next_step(e, 1, &Attempt::Network("offline")),
        Next::Retry {
            wait_ms: 1000,
            reason: WaitReason::Network
        }
    );
    assert_eq!(backoff_ms(10), 8000);
}

#[test]
fn a_timed_out_embedding_is_sent_again_a_timed_out_chat_never() {
    assert_eq!(
        next_step(CallKind::Embeddings, 1, &Attempt::Timeout),
        Next::Retry {
            wait_ms: 1000,
            reason: WaitReason::Timeout
        }
    );
    assert_eq!(
        next_step(CallKind::Embeddings, MAX_ATTEMPTS, &Attempt::Timeout),
        Next::Fail(ApiError::Timeout {
            seconds: 15,
            resent: true
        })
    );
    assert_eq!(
        next_step(CallKind::Chat, 1, &Attempt::Timeout),
        Next::Fail(ApiError::Timeout {
            seconds: 180,
            resent: false
        })
    );
    assert!(CallKind::Chat.timeout_ms() >= 120_000);
}

#[test]
fn a_text_over_the_input_limit_is_cut_at_a_character_boundary() {
    assert_eq!(input_for("court"), ("court", false));
    let long = "é".repeat(5000); // 10,000 bytes
    let (cut, was_cut) = input_for(&long);
    assert!(was_cut);
    assert_eq!(cut.len(), MAX_INPUT_BYTES);
    assert!(cut.chars().all(|c| c == 'é'));
    let odd = format!("a{}", "é".repeat(5000));
    assert_eq!(input_for(&odd).0.len(), MAX_INPUT_BYTES - 1);
}

#[test]
fn batches_stay_within_inputs_and_tokens() {
    let texts: Vec<String> = (0..300).map(|i| format!("fiche {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let b = batches(&refs);
    assert_eq!(b, vec![0..128, 128..256, 256..300]);
    let long = "x".repeat(7000);
    let b = batches(&[&long, &long, "a"]);
    assert_eq!(b, vec![0..1, 1..3]);
}

#[test]
fn the_seed_fiches_cost_under_half_a_cent() {
    let fiches = crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
    let tokens: usize = fiches.iter().map(|f| estimate_tokens(&f.texte)).sum();
    assert_eq!(tokens, 35_673);
    assert!(cost_usd(tokens as u64) < 0.004);
    let texts: Vec<&str> = fiches.iter().map(|f| f.texte.as_str()).collect();
    assert_eq!(batches(&texts).len(), 3);
}
