{
  "targets": [
    {
      "target_name": "cuda_addon",
      "sources": [
        "src/addon.cc",
        "src/addonState.cc",
        "src/cudaDriver.cc",
        "src/devices.cc",
        "src/gpuData.cc",
        "src/launches.cc",
        "src/modules.cc"
      ],
      "dependencies": ["<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"],
      "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2"],
      "ldflags": ["-Wl,-z,relro,-z,now"],
      "libraries": ["-ldl"]
    }
  ]
}
