// The UI's Japanese words: the same keys as en.js (tests/web/test_i18n.py checks it).
export default {
  "common.cancel": "キャンセル",
  "nav.lobby": "ロビー",
  "settings.title": "設定",
  "settings.theme": "テーマ",
  "settings.light": "ライト",
  "settings.dark": "ダーク",
  "settings.system": "システム",
  "settings.language": "言語",
  "settings.sounds": "着手の効果音",
  "settings.notify": "「あなたの番です」の通知（オンライン対局、このタブが隠れているとき）",
  "settings.notify_unsupported": "このブラウザーは通知を表示できません。",
  "settings.notify_refused": "ブラウザーが通知を拒否しました。サイトの設定で許可すると有効にできます。",
  "identity.name": "名前",
  "identity.password": "パスワード",
  "identity.signin": "ログイン"
};
