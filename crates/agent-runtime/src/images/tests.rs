use antler_protocol::messages::{HumanMessage, Image, Message};
use serde_json::json;

use super::*;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

#[test]
fn every_client_shape_is_read() {
    let content = json!([
        {"type": "text", "text": "what is this?"},
        {"type": "image", "mimeType": "image/png", "data": PNG, "metadata": {"name": "a.png"}},
        {"type": "image", "source_type": "base64", "mime_type": "image/PNG", "data": PNG},
        {"type": "image", "source_type": "url", "url": "https://example.com/cat.jpg"},
        {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}},
        {"type": "image_url", "image_url": "https://example.com/dog.webp"},
    ]);
    let (text, images) = split_content(&content).unwrap();
    assert_eq!(text, "what is this?");
    assert_eq!(images.len(), 5);
    assert_eq!(
        images[1],
        Image::Data {
            mime_type: "image/png".into(),
            data: PNG.into()
        }
    );
    assert_eq!(images[2], Image::Url("https://example.com/cat.jpg".into()));
    assert_eq!(images[3], images[0]);
}

#[test]
fn bad_images_are_refused_with_the_reason() {
    for (block, why) in [
        (
            json!({"type": "image", "mimeType": "image/png", "data": "%%%"}),
            "not base64",
        ),
        (
            json!({"type": "image", "mimeType": "text/html", "data": PNG}),
            "images must be",
        ),
        (json!({"type": "image", "data": PNG}), "needs its mimeType"),
        (json!({"type": "image"}), "needs data"),
        (
            json!({"type": "image_url", "image_url": {"url": "file:///etc/passwd"}}),
            "http(s):// or data:",
        ),
        (
            json!({"type": "image_url", "image_url": {"url": "data:image/png,abc"}}),
            "base64",
        ),
        (
            json!({"type": "file", "mimeType": "application/pdf", "data": PNG}),
            "upload them",
        ),
    ] {
        let err = split_content(&json!([block])).unwrap_err();
        assert!(err.contains(why), "{block}: {err}");
    }
    let huge = "A".repeat(MAX_IMAGE_BYTES / 3 * 4 + 16);
    let err = split_content(&json!([{"type": "image", "mimeType": "image/png", "data": huge}]))
        .unwrap_err();
    assert!(err.contains("larger than"), "{err}");
    let many: Vec<_> = (0..=MAX_IMAGES)
        .map(|_| json!({"type": "image", "url": "https://example.com/x.png"}))
        .collect();
    assert!(split_content(&json!(many)).unwrap_err().contains("at most"));
}

#[test]
fn vision_models_get_image_parts_and_others_a_note() {
    let images = vec![Image::Data {
        mime_type: "image/png".into(),
        data: PNG.into(),
    }];
    let seen = user_content("look", &images, true);
    assert_eq!(seen[0], json!({"type": "text", "text": "look"}));
    assert_eq!(
        seen[1]["image_url"]["url"],
        format!("data:image/png;base64,{PNG}")
    );
    let told = user_content("look", &images, false);
    assert!(
        told.as_str()
            .unwrap()
            .starts_with("look\n\n[1 image(s) attached")
    );
    assert_eq!(user_content("plain", &[], true), json!("plain"));
}

#[test]
fn messages_with_images_round_trip_as_langchain_content_blocks() {
    let message = Message::Human(HumanMessage {
        id: "m1".into(),
        content: "see".into(),
        images: vec![
            Image::Data {
                mime_type: "image/png".into(),
                data: PNG.into(),
            },
            Image::Url("https://example.com/a.png".into()),
        ],
        ..Default::default()
    });
    let wire = serde_json::to_value(&message).unwrap();
    assert_eq!(wire["type"], "human");
    assert_eq!(wire["content"][0], json!({"type": "text", "text": "see"}));
    assert_eq!(
        wire["content"][1],
        json!({"type": "image", "mimeType": "image/png", "data": PNG})
    );
    assert_eq!(
        wire["content"][2],
        json!({"type": "image", "url": "https://example.com/a.png"})
    );
    let back: Message = serde_json::from_value(wire).unwrap();
    assert_eq!(back, message);
    // Without images the content stays a plain string.
    let plain = serde_json::to_value(Message::Human(HumanMessage {
        id: "m2".into(),
        content: "hi".into(),
        ..Default::default()
    }))
    .unwrap();
    assert_eq!(plain["content"], "hi");
}
