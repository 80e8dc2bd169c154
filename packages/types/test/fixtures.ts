// Valid samples shared by several test files.
import type { ChatMessage } from '../src/chat.js';
import type { Site } from '../src/sites.js';

export const T = '2026-11-21T10:00:00.000Z';

export const site: Site = {
  id: 'V1StGXR8_Z5jdHi6B-myT',
  url: 'https://example.com',
  title: 'example.com',
  description: '',
  favicon_url: null,
  og_image_url: null,
  domain: 'example.com',
  tags: [],
  submit_count: 1,
  click_count: 0,
  hot_score: 0.5,
  site_type: 'website',
  social_platform: null,
  social_username: null,
  boost_count: 0,
  is_claimed: false,
  is_promoted: false,
  first_submitted_at: T,
  last_activity_at: T,
};

export const message: ChatMessage = {
  id: 'm1',
  type: 'chat',
  content: 'hello',
  content_key: null,
  content_params: null,
  sender_name: 'Visitor from Tokyo',
  sender_location: 'JP|Tokyo',
  like_count: 0,
  created_at: T,
};
